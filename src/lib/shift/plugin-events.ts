/** Emitted by the provider with every shift or hosted checkout it creates: the ledger records it at once. */
export const SHIFT_CREATED_EVENT = "crypto-swap.payment.shift_created"
