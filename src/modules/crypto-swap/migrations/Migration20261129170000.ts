import { Migration } from "@medusajs/framework/mikro-orm/migrations";

export class Migration20261129170000 extends Migration {

  override async up(): Promise<void> {
    // Payments marked held before this release whose refund a crash left unrecorded (on no list when refunded
    // instead of placing its order): their mark made pending and their shifts read now, which records the refunds.
    this.addSql(`update "crypto_swap_shift" as "s" set "flags" = "s"."flags" || jsonb_build_object('held_pending', jsonb_build_object('address', null, 'memo', null)), "next_sync_at" = now() where "s"."kind" = 'payment' and "s"."deleted_at" is null and "s"."flags"->>'held_refund' = 'held_' || "s"."id" and "s"."flags"->>'held_amount' is not null and "s"."flags"->'held_pending' is null and not exists (select 1 from "crypto_swap_shift" as "r" where "r"."refund_id" = 'held_' || "s"."id" and "r"."deleted_at" is null);`);
  }

  override async down(): Promise<void> {}

}
