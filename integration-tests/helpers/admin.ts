import jwt from "jsonwebtoken"
import { Modules } from "@medusajs/framework/utils"
import type { MedusaContainer } from "@medusajs/framework/types"

/** An admin user and the bearer header the admin routes accept (signed with the test app's JWT secret). */
export async function adminHeaders(container: MedusaContainer) {
  const user = await container.resolve(Modules.USER).createUsers({ email: `admin-${Date.now()}@example.com` })
  const authIdentity = await container.resolve(Modules.AUTH).createAuthIdentities({
    provider_identities: [{ provider: "emailpass", entity_id: user.email }],
    app_metadata: { user_id: user.id },
  })
  const token = jwt.sign(
    { actor_id: user.id, actor_type: "user", auth_identity_id: authIdentity.id, app_metadata: { user_id: user.id } },
    "test-jwt-secret",
    { expiresIn: "1d" }
  )
  return { headers: { authorization: `Bearer ${token}` } }
}
