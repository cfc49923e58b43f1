import { Migration } from "@medusajs/framework/mikro-orm/migrations";

export class Migration20261123153621 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table if exists "crypto_swap_shift_action" drop constraint if exists "crypto_swap_shift_action_swap_shift_id_kind_unique";`);
    this.addSql(`create table if not exists "crypto_swap_shift_action" ("id" text not null, "swap_shift_id" text not null, "kind" text check ("kind" in ('authorize', 'capture', 'cancel_expired', 'cancel_refunded', 'set_refund_address', 'cancel_abandoned')) not null, "state" text check ("state" in ('pending', 'done', 'attention')) not null default 'pending', "attempts" integer not null default 0, "next_attempt_at" timestamptz null, "last_error" text null, "outcome" text null, "done_at" timestamptz null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, constraint "crypto_swap_shift_action_pkey" primary key ("id"));`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_crypto_swap_shift_action_deleted_at" ON "crypto_swap_shift_action" ("deleted_at") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_crypto_swap_shift_action_swap_shift_id_kind_unique" ON "crypto_swap_shift_action" ("swap_shift_id", "kind") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_crypto_swap_shift_action_state" ON "crypto_swap_shift_action" ("state") WHERE deleted_at IS NULL;`);

    this.addSql(`alter table if exists "crypto_swap_shift" add column if not exists "refund_owed" text null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "crypto_swap_shift_action" cascade;`);

    this.addSql(`alter table if exists "crypto_swap_shift" drop column if exists "refund_owed";`);
  }

}
