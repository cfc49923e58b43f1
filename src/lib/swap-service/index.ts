// The public API of the swap service client.
export {
  SwapServiceClient,
  type SwapServiceClientOptions,
  type RequestContext,
  type QuoteRequest,
  type CoinPair,
  type FixedShiftRequest,
  type VariableShiftRequest,
  type CheckoutRequest,
} from "./client"
export { SwapServiceError, classifyFailure, mayHaveActed, parseRetryAfter, type Failure, type FailureKind } from "./errors"
export { MAX_RETRY_WAIT_MS, type CallLimits } from "./transport"
export {
  coinSchema,
  quoteSchema,
  shiftSchema,
  shiftDepositSchema,
  pairRateSchema,
  checkoutSchema,
  hookSchema,
  webhookNotificationSchema,
  type Coin,
  type Quote,
  type Shift,
  type ShiftDeposit,
  type ShiftStatus,
  type KnownShiftStatus,
  type PairRate,
  type Checkout,
  type Hook,
  type WebhookNotification,
} from "./schemas"
export {
  findCoinNetwork,
  isMemoNetwork,
  isNetworkOffline,
  isVariableOnly,
  chooseShiftType,
  assertSettleMemoAllowed,
  assertQuoteUsable,
  toServiceCommissionRate,
  type CoinNetwork,
  type Side,
} from "./rules"
export { latestShiftId } from "./checkout"
export { compareTimestamps, parseTimestamp } from "./timestamps"
export { CoinCatalogue, type CoinCatalogueOptions } from "./catalogue"
export { RequestMetricsRecorder, type RequestMetric, type MetricsSummary } from "./metrics"
export { ReadCache, type ReadCacheOptions } from "./read-cache"
export { CachingSwapClient, amountBand, type ReadCachingOptions } from "./caching-client"
