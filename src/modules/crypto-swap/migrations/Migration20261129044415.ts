import { Migration } from "@medusajs/framework/mikro-orm/migrations";

export class Migration20261129044415 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table if exists "crypto_swap_shift" add column if not exists "unsent_events" jsonb null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table if exists "crypto_swap_shift" drop column if exists "unsent_events";`);
  }

}
