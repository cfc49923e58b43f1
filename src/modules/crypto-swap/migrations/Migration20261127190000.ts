import { Migration } from "@medusajs/framework/mikro-orm/migrations";

export class Migration20261127190000 extends Migration {

  override async up(): Promise<void> {
    // Money held for a refund before this release: what its refund gives back, so a deposit arriving later is counted apart.
    this.addSql(`update "crypto_swap_shift" as "s" set "flags" = "s"."flags" || jsonb_build_object('held_amount', "r"."amount_due") from "crypto_swap_shift" as "r" where "r"."refund_id" = 'held_' || "s"."id" and "r"."kind" = 'refund' and "r"."deleted_at" is null and "s"."flags"->>'held_refund' is not null and "s"."flags"->>'held_amount' is null and "r"."amount_due" is not null;`);
  }

  override async down(): Promise<void> {}

}
