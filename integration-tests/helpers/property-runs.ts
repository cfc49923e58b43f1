/**
 * Seed and run count of every property test (fast-check). `npm test` and CI use one fixed seed, so a commit
 * passes or fails the same way on every run; `FC_SEED` replays another seed and `FC_RUNS` sets every
 * property's run count. `npm run test:fuzz` draws a fresh seed for the whole run and sets `FC_FUZZ`, which
 * multiplies the default run counts. Each property prints its seed and run count; fast-check names the seed
 * and the path of a counterexample in its failure too.
 */
// The seed that once drew a refusal quoting an attacker's field name `D:\…` (taken for a source path by the
// leak detector): kept as the fixed seed so that case stays a regression test.
export const FIXED_SEED = 848456142
const FUZZ_FACTOR = 5

function integerFromEnv(name: string): number | undefined {
  const value = process.env[name]
  if (value === undefined || value === "") return undefined
  if (!/^-?\d+$/.test(value)) throw new Error(`${name} must be a whole number, got ${JSON.stringify(value)}`)
  return Number(value)
}

export function propertySeed(): number {
  return integerFromEnv("FC_SEED") ?? FIXED_SEED
}

/** fast-check parameters for the property `name`, which runs `defaultRuns` times in `npm test`. */
export function propertyParams(name: string, defaultRuns: number) {
  const seed = propertySeed()
  const numRuns = integerFromEnv("FC_RUNS") ?? (process.env.FC_FUZZ ? defaultRuns * FUZZ_FACTOR : defaultRuns)
  process.stdout.write(`fast-check ${name}: seed ${seed}, ${numRuns} runs (FC_SEED=${seed} FC_RUNS=${numRuns} replays it)\n`)
  return { seed, numRuns, endOnFailure: true }
}
