import { Migration } from "@medusajs/framework/mikro-orm/migrations";

export class Migration20261127220000 extends Migration {

  override async up(): Promise<void> {
    // Top-ups credited before this release: what they counted (one deposit, settled), so one sent to the
    // same address later is counted apart; those whose variable address is still open are watched again.
    this.addSql(`update "crypto_swap_shift" set "flags" = (case when jsonb_typeof("flags") = 'object' then "flags" else '{}'::jsonb end) || jsonb_build_object('credited_amount', "settle_amount") where "kind" = 'top_up' and "status" = 'settled' and "captured_at" is not null and "settle_amount" is not null and "deleted_at" is null and "flags"->>'held_refund' is null and "flags"->>'credited_amount' is null;`);
    this.addSql(`update "crypto_swap_shift" set "next_sync_at" = now() where "kind" = 'top_up' and "type" = 'variable' and "captured_at" is not null and "next_sync_at" is null and "expires_at" > now() and "deleted_at" is null;`);
  }

  override async down(): Promise<void> {}

}
