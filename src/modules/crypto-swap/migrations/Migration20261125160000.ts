import { Migration } from "@medusajs/framework/mikro-orm/migrations";

export class Migration20261125160000 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table if exists "crypto_swap_shift" drop constraint if exists "crypto_swap_shift_kind_check";`);

    this.addSql(`alter table if exists "crypto_swap_shift" add constraint "crypto_swap_shift_kind_check" check("kind" in ('payment', 'refund', 'top_up'));`);

    this.addSql(`alter table if exists "crypto_swap_shift" add column if not exists "top_up_of" text null;`);

    this.addSql(`alter table if exists "crypto_swap_shift" add column if not exists "credit" text null;`);

    this.addSql(`alter table if exists "crypto_swap_shift" add column if not exists "last_viewed_at" timestamptz null;`);

    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_crypto_swap_shift_top_up_of" ON "crypto_swap_shift" ("top_up_of") WHERE deleted_at IS NULL;`);

    this.addSql(`alter table if exists "crypto_swap_shift_action" drop constraint if exists "crypto_swap_shift_action_kind_check";`);

    this.addSql(`alter table if exists "crypto_swap_shift_action" add constraint "crypto_swap_shift_action_kind_check" check("kind" in ('authorize', 'capture', 'cancel_expired', 'cancel_refunded', 'set_refund_address', 'cancel_abandoned', 'create_refund_shift', 'credit_top_up', 'settle_underpayment'));`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "IDX_crypto_swap_shift_top_up_of";`);

    this.addSql(`alter table if exists "crypto_swap_shift" drop column if exists "top_up_of";`);

    this.addSql(`alter table if exists "crypto_swap_shift" drop column if exists "credit";`);

    this.addSql(`alter table if exists "crypto_swap_shift" drop column if exists "last_viewed_at";`);

    this.addSql(`alter table if exists "crypto_swap_shift" drop constraint if exists "crypto_swap_shift_kind_check";`);

    this.addSql(`alter table if exists "crypto_swap_shift" add constraint "crypto_swap_shift_kind_check" check("kind" in ('payment', 'refund'));`);

    this.addSql(`alter table if exists "crypto_swap_shift_action" drop constraint if exists "crypto_swap_shift_action_kind_check";`);

    this.addSql(`alter table if exists "crypto_swap_shift_action" add constraint "crypto_swap_shift_action_kind_check" check("kind" in ('authorize', 'capture', 'cancel_expired', 'cancel_refunded', 'set_refund_address', 'cancel_abandoned', 'create_refund_shift'));`);
  }

}
