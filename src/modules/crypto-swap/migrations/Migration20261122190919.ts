import { Migration } from "@medusajs/framework/mikro-orm/migrations";

export class Migration20261122190919 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table if exists "crypto_swap_webhook" drop constraint if exists "crypto_swap_webhook_hook_id_unique";`);
    this.addSql(`alter table if exists "crypto_swap_shift" drop constraint if exists "crypto_swap_shift_refund_id_unique";`);
    this.addSql(`alter table if exists "crypto_swap_shift" drop constraint if exists "crypto_swap_shift_checkout_id_unique";`);
    this.addSql(`alter table if exists "crypto_swap_shift" drop constraint if exists "crypto_swap_shift_shift_id_unique";`);
    this.addSql(`create table if not exists "crypto_swap_reconciliation_run" ("id" text not null, "started_at" timestamptz not null, "duration_ms" integer not null, "discovered" integer not null default 0, "due" integer not null default 0, "read" integer not null default 0, "changed" integer not null default 0, "failed" integer not null default 0, "deferred" integer not null default 0, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, constraint "crypto_swap_reconciliation_run_pkey" primary key ("id"));`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_crypto_swap_reconciliation_run_started_at" ON "crypto_swap_reconciliation_run" ("started_at") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_crypto_swap_reconciliation_run_deleted_at" ON "crypto_swap_reconciliation_run" ("deleted_at") WHERE deleted_at IS NULL;`);

    this.addSql(`create table if not exists "crypto_swap_shift" ("id" text not null, "shift_id" text null, "kind" text check ("kind" in ('payment', 'refund')) not null default 'payment', "type" text null, "provider_id" text null, "payment_session_id" text null, "payment_collection_id" text null, "payment_id" text null, "cart_id" text null, "order_id" text null, "checkout_id" text null, "refund_of_shift_id" text null, "refund_id" text null, "deposit_coin" text null, "deposit_network" text null, "deposit_address" text null, "deposit_memo" text null, "deposit_amount" text null, "deposit_min" text null, "deposit_max" text null, "settle_coin" text null, "settle_network" text null, "settle_address" text null, "settle_memo" text null, "settle_amount" text null, "refund_address" text null, "refund_memo" text null, "rate" text null, "amount_due" text null, "currency_code" text null, "expires_at" timestamptz null, "status" text not null, "issue" text null, "deposits" jsonb null, "deposit_hash" text null, "settle_hash" text null, "snapshot" jsonb null, "terminal" boolean not null default false, "flags" jsonb null, "authorized_at" timestamptz null, "captured_at" timestamptz null, "canceled_at" timestamptz null, "order_canceled_at" timestamptz null, "last_synced_at" timestamptz null, "next_sync_at" timestamptz null, "sync_failures" integer not null default 0, "last_error" text null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, constraint "crypto_swap_shift_pkey" primary key ("id"));`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_crypto_swap_shift_shift_id_unique" ON "crypto_swap_shift" ("shift_id") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_crypto_swap_shift_payment_session_id" ON "crypto_swap_shift" ("payment_session_id") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_crypto_swap_shift_order_id" ON "crypto_swap_shift" ("order_id") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_crypto_swap_shift_checkout_id_unique" ON "crypto_swap_shift" ("checkout_id") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_crypto_swap_shift_refund_id_unique" ON "crypto_swap_shift" ("refund_id") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_crypto_swap_shift_next_sync_at" ON "crypto_swap_shift" ("next_sync_at") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_crypto_swap_shift_deleted_at" ON "crypto_swap_shift" ("deleted_at") WHERE deleted_at IS NULL;`);

    this.addSql(`create table if not exists "crypto_swap_shift_event" ("id" text not null, "swap_shift_id" text not null, "from_status" text null, "to_status" text not null, "issue" text null, "source" text check ("source" in ('create', 'poll', 'webhook', 'storefront', 'admin')) not null, "action" text null, "detail" jsonb null, "occurred_at" timestamptz not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, constraint "crypto_swap_shift_event_pkey" primary key ("id"));`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_crypto_swap_shift_event_swap_shift_id" ON "crypto_swap_shift_event" ("swap_shift_id") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_crypto_swap_shift_event_deleted_at" ON "crypto_swap_shift_event" ("deleted_at") WHERE deleted_at IS NULL;`);

    this.addSql(`create table if not exists "crypto_swap_webhook" ("id" text not null, "provider_id" text not null, "hook_id" text not null, "target_url" text not null, "enabled" boolean not null default true, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, constraint "crypto_swap_webhook_pkey" primary key ("id"));`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_crypto_swap_webhook_provider_id" ON "crypto_swap_webhook" ("provider_id") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_crypto_swap_webhook_hook_id_unique" ON "crypto_swap_webhook" ("hook_id") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_crypto_swap_webhook_deleted_at" ON "crypto_swap_webhook" ("deleted_at") WHERE deleted_at IS NULL;`);

    this.addSql(`alter table if exists "crypto_swap_shift_event" add constraint "crypto_swap_shift_event_swap_shift_id_foreign" foreign key ("swap_shift_id") references "crypto_swap_shift" ("id") on update cascade on delete cascade;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table if exists "crypto_swap_shift_event" drop constraint if exists "crypto_swap_shift_event_swap_shift_id_foreign";`);

    this.addSql(`drop table if exists "crypto_swap_reconciliation_run" cascade;`);

    this.addSql(`drop table if exists "crypto_swap_shift" cascade;`);

    this.addSql(`drop table if exists "crypto_swap_shift_event" cascade;`);

    this.addSql(`drop table if exists "crypto_swap_webhook" cascade;`);
  }

}
