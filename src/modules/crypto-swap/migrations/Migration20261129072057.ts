import { Migration } from "@medusajs/framework/mikro-orm/migrations";

export class Migration20261129072057 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table if exists "crypto_swap_shift_action" add column if not exists "blocked_since" timestamptz null;`);
    // Actions that never ran and may wait on another before this release, unseen: counted from when they were
    // planned, and their shifts read now, which runs those that can run and puts the rest on the merchant's list.
    this.addSql(`update "crypto_swap_shift_action" set "blocked_since" = "created_at" where "state" = 'pending' and "attempts" = 0 and "kind" in ('capture', 'refund_canceled_capture', 'refund_excess') and "deleted_at" is null;`);
    this.addSql(`update "crypto_swap_shift" set "next_sync_at" = now() where ("next_sync_at" is null or "next_sync_at" > now()) and "deleted_at" is null and "id" in (select "swap_shift_id" from "crypto_swap_shift_action" where "blocked_since" is not null and "state" = 'pending' and "deleted_at" is null);`);
    // Refunds recorded before this release waiting for an address nobody asked the shopper for: read once, which asks.
    this.addSql(`update "crypto_swap_shift" set "next_sync_at" = now() where "kind" = 'refund' and "status" = 'address_needed' and "next_sync_at" is null and "deleted_at" is null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table if exists "crypto_swap_shift_action" drop column if exists "blocked_since";`);
  }

}
