import { Migration } from "@medusajs/framework/mikro-orm/migrations";

export class Migration20261128140000 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table if exists "crypto_swap_shift_action" drop constraint if exists "crypto_swap_shift_action_kind_check";`);

    this.addSql(`alter table if exists "crypto_swap_shift_action" add constraint "crypto_swap_shift_action_kind_check" check("kind" in ('authorize', 'capture', 'cancel_expired', 'cancel_refunded', 'set_refund_address', 'cancel_abandoned', 'create_refund_shift', 'credit_top_up', 'settle_underpayment', 'refund_excess', 'refund_canceled_capture'));`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table if exists "crypto_swap_shift_action" drop constraint if exists "crypto_swap_shift_action_kind_check";`);

    this.addSql(`alter table if exists "crypto_swap_shift_action" add constraint "crypto_swap_shift_action_kind_check" check("kind" in ('authorize', 'capture', 'cancel_expired', 'cancel_refunded', 'set_refund_address', 'cancel_abandoned', 'create_refund_shift', 'credit_top_up', 'settle_underpayment', 'refund_excess'));`);
  }

}
