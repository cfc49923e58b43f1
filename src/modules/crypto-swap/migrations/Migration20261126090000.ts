import { Migration } from "@medusajs/framework/mikro-orm/migrations";

export class Migration20261126090000 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_crypto_swap_shift_deposit_hash" ON "crypto_swap_shift" ("deposit_hash") WHERE deleted_at IS NULL;`);

    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_crypto_swap_shift_settle_hash" ON "crypto_swap_shift" ("settle_hash") WHERE deleted_at IS NULL;`);

    // The payments page pages newest first and the export reads a date range by (created_at, id): the
    // DML cannot index its implicit created_at column, so this index lives here only (not in the snapshot).
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_crypto_swap_shift_created_at_id" ON "crypto_swap_shift" ("created_at", "id") WHERE deleted_at IS NULL;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "IDX_crypto_swap_shift_deposit_hash";`);

    this.addSql(`drop index if exists "IDX_crypto_swap_shift_settle_hash";`);

    this.addSql(`drop index if exists "IDX_crypto_swap_shift_created_at_id";`);
  }

}
