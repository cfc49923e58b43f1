import { ModuleProvider, Modules } from "@medusajs/framework/utils"
import { CryptoSwapProviderService } from "./service"

export default ModuleProvider(Modules.PAYMENT, {
  services: [CryptoSwapProviderService],
})
