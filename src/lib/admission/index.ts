// Admission control: how many payment sessions and service reads the store routes let through.
export { AdmissionLimiter, type Admission, type Budget, type BudgetScope, type LimiterFactory } from "./admission-limiter"
export { admitSession, readBudgets, refusal, sessionBudgets, sessionNotMade, shopperKey, type AdmissionAction } from "./budgets"
export { ADMISSION_KEY_PREFIX, admissionLimiter, memoryLimiters, redisLimiters } from "./limiter-store"
