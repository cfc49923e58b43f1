import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, PaymentSessionStatus } from "@medusajs/framework/utils"

/** Of these payment sessions, the ones Medusa deleted (a new session replaced them) or canceled. */
export async function goneSessions(container: MedusaContainer, sessionIds: string[]): Promise<Set<string>> {
  if (!sessionIds.length) return new Set()
  const { data: sessions } = await container
    .resolve(ContainerRegistrationKeys.QUERY)
    .graph({ entity: "payment_session", fields: ["id", "status"], filters: { id: sessionIds } })
  const live = new Set(sessions.filter((session) => session.status !== PaymentSessionStatus.CANCELED).map((session) => session.id))
  return new Set(sessionIds.filter((id) => !live.has(id)))
}
