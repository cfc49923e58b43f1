import type { CSSProperties, JSX } from "react"
import type { CryptoSwapOrderDetail, CryptoSwapUpdateDetail } from "./index.mjs"

export type CryptoSwapCheckoutProps = {
  /** The Medusa backend, e.g. process.env.NEXT_PUBLIC_MEDUSA_BACKEND_URL; the page's origin when left out. */
  backendUrl?: string
  publishableKey: string
  cartId: string
  /** The shopper's language ("de", "pt-BR"); passed to the store routes. The browser's languages when left out. */
  locale?: string
  /** Only with several crypto-swap providers: the one to pay with. */
  providerId?: string
  className?: string
  style?: CSSProperties
  onUpdate?: (detail: CryptoSwapUpdateDetail) => void
  /** The plugin has placed the order: e.g. the Next.js starter's `placeOrder()` now returns it. */
  onOrderPlaced?: (detail: CryptoSwapOrderDetail) => void
  /** The payment is complete and captured. */
  onPaid?: (detail: CryptoSwapOrderDetail) => void
}

export declare function CryptoSwapCheckout(props: CryptoSwapCheckoutProps): JSX.Element
