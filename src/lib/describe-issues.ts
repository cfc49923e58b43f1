import type { z } from "@medusajs/framework/zod"

/** Every reason an input was refused, in words a storefront developer can act on (never the values). */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) =>
      issue.code === "unrecognized_keys"
        ? `unknown field(s): ${issue.keys.join(", ")}`
        : `${issue.path.join(".") || "input"}: ${issue.message}`
    )
    .join("; ")
}
