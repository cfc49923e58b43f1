import { Migration } from "@medusajs/framework/mikro-orm/migrations";

export class Migration20261127150000 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table if exists "crypto_swap_shift_action" drop constraint if exists "crypto_swap_shift_action_kind_check";`);

    this.addSql(`alter table if exists "crypto_swap_shift_action" add constraint "crypto_swap_shift_action_kind_check" check("kind" in ('authorize', 'capture', 'cancel_expired', 'cancel_refunded', 'set_refund_address', 'cancel_abandoned', 'create_refund_shift', 'credit_top_up', 'settle_underpayment', 'refund_excess'));`);

    // Finished variable payments whose address still takes deposits are watched from now on, those before this release too.
    this.addSql(`update "crypto_swap_shift" set "next_sync_at" = now() where "kind" = 'payment' and "type" = 'variable' and "terminal" = true and "status" <> 'expired' and "next_sync_at" is null and "expires_at" > now() and "deleted_at" is null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table if exists "crypto_swap_shift_action" drop constraint if exists "crypto_swap_shift_action_kind_check";`);

    this.addSql(`alter table if exists "crypto_swap_shift_action" add constraint "crypto_swap_shift_action_kind_check" check("kind" in ('authorize', 'capture', 'cancel_expired', 'cancel_refunded', 'set_refund_address', 'cancel_abandoned', 'create_refund_shift', 'credit_top_up', 'settle_underpayment'));`);
  }

}
