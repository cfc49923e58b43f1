import { Migration } from "@medusajs/framework/mikro-orm/migrations";

export class Migration20261126120000 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_crypto_swap_shift_payment_id" ON "crypto_swap_shift" ("payment_id") WHERE deleted_at IS NULL;`);

    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_crypto_swap_shift_cart_id" ON "crypto_swap_shift" ("cart_id") WHERE deleted_at IS NULL;`);

    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_crypto_swap_shift_refund_of_shift_id" ON "crypto_swap_shift" ("refund_of_shift_id") WHERE deleted_at IS NULL;`);

    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_crypto_swap_shift_terminal_status_expires_at" ON "crypto_swap_shift" ("terminal", "status", "expires_at") WHERE deleted_at IS NULL;`);

    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_crypto_swap_shift_kind_status_order_id" ON "crypto_swap_shift" ("kind", "status", "order_id") WHERE deleted_at IS NULL;`);

    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_crypto_swap_shift_flags" ON "crypto_swap_shift" USING GIN ("flags") WHERE deleted_at IS NULL;`);

    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_crypto_swap_shift_sync_failures" ON "crypto_swap_shift" ("sync_failures") WHERE sync_failures > 0 AND deleted_at IS NULL;`);

    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_crypto_swap_shift_refund_owed" ON "crypto_swap_shift" ("refund_owed") WHERE refund_owed IS NOT NULL AND deleted_at IS NULL;`);

    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_crypto_swap_shift_paid_no_order_since" ON "crypto_swap_shift" ("paid_no_order_since") WHERE paid_no_order_since IS NOT NULL AND deleted_at IS NULL;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "IDX_crypto_swap_shift_payment_id";`);

    this.addSql(`drop index if exists "IDX_crypto_swap_shift_cart_id";`);

    this.addSql(`drop index if exists "IDX_crypto_swap_shift_refund_of_shift_id";`);

    this.addSql(`drop index if exists "IDX_crypto_swap_shift_terminal_status_expires_at";`);

    this.addSql(`drop index if exists "IDX_crypto_swap_shift_kind_status_order_id";`);

    this.addSql(`drop index if exists "IDX_crypto_swap_shift_flags";`);

    this.addSql(`drop index if exists "IDX_crypto_swap_shift_sync_failures";`);

    this.addSql(`drop index if exists "IDX_crypto_swap_shift_refund_owed";`);

    this.addSql(`drop index if exists "IDX_crypto_swap_shift_paid_no_order_since";`);
  }

}
