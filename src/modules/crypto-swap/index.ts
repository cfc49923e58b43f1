import { Module } from "@medusajs/framework/utils"
import CryptoSwapModuleService from "./service"

export const CRYPTO_SWAP_MODULE = "cryptoSwap"

export default Module(CRYPTO_SWAP_MODULE, {
  service: CryptoSwapModuleService,
})

export type { default as CryptoSwapModuleService } from "./service"
