import { Migration } from "@medusajs/framework/mikro-orm/migrations";

export class Migration20261129044415 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table if exists "crypto_swap_shift" add column if not exists "unsent_events" jsonb null;`);
    // A capture planned beside the authorize that found Medusa had refunded the payment itself waited forever
    // before this release (nothing is captured on such money): ended as the authorize now ends it.
    this.addSql(`update "crypto_swap_shift_action" set "state" = 'done', "done_at" = now(), "next_attempt_at" = null, "last_error" = null, "outcome" = 'refunded_by_medusa' where "kind" = 'capture' and "state" in ('pending', 'attention') and "deleted_at" is null and "swap_shift_id" in (select "id" from "crypto_swap_shift" where "flags"->>'refunded_by_medusa' is not null and "captured_at" is null and "deleted_at" is null);`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table if exists "crypto_swap_shift" drop column if exists "unsent_events";`);
  }

}
