import { MedusaError } from "@medusajs/framework/utils"
import type { z } from "@medusajs/framework/zod"
import { describeIssues } from "../lib/describe-issues"

/** Validates a query or body, answering a clear 400 with every reason when it does not fit. */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input ?? {})
  if (!result.success) {
    throw new MedusaError(MedusaError.Types.INVALID_DATA, describeIssues(result.error))
  }
  return result.data
}
