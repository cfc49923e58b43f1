#!/usr/bin/env node
// `npm ci` refuses a lock file that leaves out any platform's optional package ("Missing: @swc/core-darwin-arm64@
// from lock file"). npm writes such a lock, without a word, when the registry lacks one platform's build of a
// package's newest version; package.json then pins that package to a version every platform has.
// This check finds the gap before a contributor's `npm ci` does: every optional dependency of every locked
// package must resolve to a locked package, the way Node resolves it (nearest node_modules upwards).
import { readFileSync } from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const { packages } = JSON.parse(readFileSync(path.join(root, "package-lock.json"), "utf8"))

/** The locked package Node would load for `name` from `from`, or undefined. */
function lockedFrom(from, name) {
  for (let dir = from; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf("/node_modules/")))) {
    const entry = packages[`${dir ? `${dir}/` : ""}node_modules/${name}`]
    if (entry) return entry
    if (!dir) return undefined
  }
}

/** Platform builds are named by exact version: the locked one must be that version. */
const EXACT = /^\d+\.\d+\.\d+(?:-[\w.]+)?$/
const satisfied = (entry, range) => Boolean(entry) && (!EXACT.test(range) || entry.version === range)

const gaps = Object.entries(packages).flatMap(([location, entry]) =>
  Object.entries(entry.optionalDependencies ?? {})
    .filter(([name, range]) => !satisfied(lockedFrom(location, name), range))
    .map(([name, range]) => `${location || "(root)"}@${entry.version} -> ${name}@${range}`)
)
if (gaps.length) {
  console.error(`package-lock.json leaves out ${gaps.length} optional package(s); \`npm ci\` would refuse it:`)
  for (const gap of gaps) console.error(`  ${gap}`)
  console.error("Pin the parent (package.json devDependencies or overrides) to a version whose every platform build is published, then `npm install`.")
  process.exit(1)
}
console.log(`package-lock.json: all optional packages of ${Object.keys(packages).length - 1} locked packages are locked`)
