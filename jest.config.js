// Four suites, chosen with TEST_TYPE: unit (src/**/__tests__), integration:modules, integration:http and
// integration:reliability (faults, attacks, concurrency, secrets).
const { loadEnv } = require("@medusajs/framework/utils")
loadEnv("test", process.cwd())

const testMatch = {
  unit: ["**/src/**/__tests__/**/*.unit.spec.[jt]s"],
  "integration:modules": ["**/integration-tests/modules/**/*.spec.[jt]s"],
  "integration:http": ["**/integration-tests/http/**/*.spec.[jt]s"],
  "integration:reliability": ["**/integration-tests/reliability/**/*.spec.[jt]s"],
  // Both at once, as `npm test` runs them: files side by side, each on its own database.
  "integration:http+reliability": ["**/integration-tests/http/**/*.spec.[jt]s", "**/integration-tests/reliability/**/*.spec.[jt]s"],
  // Benchmarks (`npm run bench`, bench/run.mjs): never part of the test suites.
  bench: ["**/bench/**/*.bench.[jt]s"],
}[process.env.TEST_TYPE ?? "unit"]

module.exports = {
  transform: {
    "^.+\\.[jt]sx?$": [
      "@swc/jest",
      {
        jsc: {
          parser: { syntax: "typescript", decorators: true },
          target: "es2021",
        },
      },
    ],
  },
  testEnvironment: "node",
  // The limit guards against a hang, not a slow machine: a loaded 2-core CI box can take seconds for what
  // takes milliseconds here. Files that need longer say so.
  testTimeout: 60_000,
  // An integration test's spies end with it, even when it fails before its own mockRestore: a spy left on
  // a shared service (the event bus) would change what the file's later tests see.
  restoreMocks: (process.env.TEST_TYPE ?? "unit").startsWith("integration"),
  moduleFileExtensions: ["js", "ts", "json"],
  modulePathIgnorePatterns: ["dist/", "<rootDir>/.medusa/", "<rootDir>/demo/"],
  setupFiles: ["./integration-tests/setup.js"],
  // The slowest integration files first, so the two workers finish together (see the file).
  testSequencer: "<rootDir>/integration-tests/sequencer.js",
  moduleNameMapper: { "^@medusajs/test-utils$": "<rootDir>/integration-tests/helpers/medusa-test-utils.ts" },
  testMatch,
}
