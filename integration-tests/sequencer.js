// The order jest hands test files to its workers (jest.config.js, testSequencer). The integration files run
// two at a time, so the run ends when the later of the two workers does: the files that take minutes must
// start first, or one of them starts late and the other worker idles while it finishes. Jest orders by the
// durations of the last run in its cache, which a CI machine never has (and it runs files it has timings
// for after those it has none for); without them, by file size, which puts a short file with a long fixed
// wait (the flood's two minutes) after most others. So: files that failed last time first, as jest does;
// then these, longest first; then the rest as jest orders them.
const Sequencer = require("@jest/test-sequencer").default
const path = require("node:path")

/** Typically minutes each on a loaded 2-core CI machine, longest first: keep it in step with what CI shows. */
const SLOWEST_FIRST = [
  "integration-tests/reliability/flood.spec.ts",
  "integration-tests/reliability/restart.spec.ts",
  "integration-tests/reliability/upstream-faults.spec.ts",
  "integration-tests/http/refund-paths.spec.ts",
  "integration-tests/http/amount-mismatch.spec.ts",
]

class SlowestFirst extends Sequencer {
  sort(tests) {
    const rank = (test) => {
      if (this.hasFailed(test)) return -1
      const known = SLOWEST_FIRST.indexOf(path.relative(test.context.config.rootDir, test.path).split(path.sep).join("/"))
      return known < 0 ? SLOWEST_FIRST.length : known
    }
    // Array.prototype.sort is stable: within a rank, jest's own order stands.
    return super.sort(tests).sort((a, b) => rank(a) - rank(b))
  }
}

module.exports = SlowestFirst
