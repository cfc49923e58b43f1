// Preloaded (`node --require`) into a store process that a test means to kill at one exact point of
// its workflows: CRYPTO_SWAP_TEST_CRASH_AT="<event>:<name>", where the event is one Medusa's workflow
// orchestrator emits ("stepBegin", "stepSuccess" with a step's name, "finish" with a workflow's id).
// The process kills itself with SIGKILL the first time it gets there: nothing after that point runs,
// nothing is flushed, as when a machine dies. It says so first on stdout (synchronous on a pipe).
const { DistributedTransaction, TransactionOrchestrator } = require("@medusajs/orchestration")

const [event, name] = (process.env.CRYPTO_SWAP_TEST_CRASH_AT ?? "").split(":")
if (!event || !name) throw new Error(`CRYPTO_SWAP_TEST_CRASH_AT must be "<event>:<name>", got "${process.env.CRYPTO_SWAP_TEST_CRASH_AT}"`)

function crashAt(emitted, payload) {
  if (emitted !== event) return
  const reached = payload?.step ? payload.step.definition?.action : payload?.transaction?.modelId
  if (reached !== name) return
  process.stdout.write(`crash-at: killed at ${event}:${name}\n`)
  process.kill(process.pid, "SIGKILL")
}

// Steps' events are emitted on their transaction, a workflow's end on the orchestrator.
for (const emitter of [DistributedTransaction, TransactionOrchestrator]) {
  const emit = emitter.prototype.emit
  emitter.prototype.emit = function (emitted, payload, ...rest) {
    crashAt(emitted, payload)
    return emit.call(this, emitted, payload, ...rest)
  }
}
