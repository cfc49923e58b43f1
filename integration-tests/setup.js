// MikroORM keeps entity metadata in a process-wide store; clear it so each test file boots a fresh app.
const { MetadataStorage } = require("@mikro-orm/core")

MetadataStorage.clear()

// Test apps run the reconciliation job only when a test asks for it, so assertions see one tick at a time.
process.env.CRYPTO_SWAP_RECONCILE_INTERVAL_MS ??= String(60 * 60 * 1000)
// Nor the hourly look for order cancels the plugin never heard of: a test runs it when it means to.
process.env.CRYPTO_SWAP_UNHEARD_CANCELS_INTERVAL_MS ??= String(24 * 60 * 60 * 1000)
