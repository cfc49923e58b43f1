import { Migration } from "@medusajs/framework/mikro-orm/migrations";

export class Migration20261124111218 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table if exists "crypto_swap_reconciliation_run" add column if not exists "discovered_through" timestamptz null;`);

    this.addSql(`alter table if exists "crypto_swap_shift" add column if not exists "paid_no_order_since" timestamptz null;`);

    this.addSql(`alter table if exists "crypto_swap_shift_action" drop constraint if exists "crypto_swap_shift_action_kind_check";`);

    this.addSql(`alter table if exists "crypto_swap_reconciliation_run" add column if not exists "refunds_through" timestamptz null;`);

    this.addSql(`alter table if exists "crypto_swap_shift_action" add constraint "crypto_swap_shift_action_kind_check" check("kind" in ('authorize', 'capture', 'cancel_expired', 'cancel_refunded', 'set_refund_address', 'cancel_abandoned', 'create_refund_shift'));`);

    this.addSql(`alter table if exists "crypto_swap_shift" add column if not exists "customer_ip" text null;`);

    this.addSql(`alter table if exists "crypto_swap_shift" add column if not exists "refund_quote" jsonb null;`);

    this.addSql(`alter table if exists "crypto_swap_shift" add column if not exists "deposit_estimate" text null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table if exists "crypto_swap_reconciliation_run" drop column if exists "discovered_through";`);

    this.addSql(`alter table if exists "crypto_swap_shift" drop column if exists "paid_no_order_since";`);

    this.addSql(`alter table if exists "crypto_swap_shift_action" drop constraint if exists "crypto_swap_shift_action_kind_check";`);

    this.addSql(`alter table if exists "crypto_swap_reconciliation_run" drop column if exists "refunds_through";`);

    this.addSql(`alter table if exists "crypto_swap_shift_action" add constraint "crypto_swap_shift_action_kind_check" check("kind" in ('authorize', 'capture', 'cancel_expired', 'cancel_refunded', 'set_refund_address', 'cancel_abandoned'));`);

    this.addSql(`alter table if exists "crypto_swap_shift" drop column if exists "customer_ip";`);

    this.addSql(`alter table if exists "crypto_swap_shift" drop column if exists "refund_quote";`);

    this.addSql(`alter table if exists "crypto_swap_shift" drop column if exists "deposit_estimate";`);
  }

}
