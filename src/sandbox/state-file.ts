import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { open, rename } from "node:fs/promises"
import path from "node:path"

/** Changes within this window share one write, so a busy sandbox writes a few times a second at most. */
const WRITE_DELAY_MS = 200

/** State files claimed by sandboxes of this process (the lock file's pid can't tell them apart). */
const claimedHere = new Set<string>()

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/**
 * The file a sandbox keeps its state in between runs. Writes go to a temporary file that then replaces
 * the old one, so a crash mid-write leaves the previous state intact; they are coalesced and happen off
 * the request path, and `close` writes whatever is still pending.
 */
export class StateFile {
  private timer: NodeJS.Timeout | undefined
  private writing: Promise<void> = Promise.resolve()
  private snapshot: (() => string) | undefined

  constructor(
    readonly path: string,
    private readonly log: (line: string) => void
  ) {}

  /**
   * Makes this sandbox the file's only writer until `close` or `release`: two sandboxes saving one file
   * would each overwrite the other's shifts. A lock file beside it holds the owner's pid; one left by a
   * process that is gone is taken over.
   */
  claim(): void {
    const lock = `${this.path}.lock`
    mkdirSync(path.dirname(this.path), { recursive: true })
    const inUse = (pid: number | string) =>
      new Error(`The sandbox state file ${this.path} is in use by another sandbox (pid ${pid}): stop it first, or use another --state-file.`)
    if (claimedHere.has(this.path)) throw inUse(process.pid)
    try {
      writeFileSync(lock, String(process.pid), { flag: "wx" })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
      const holder = Number(readFileSync(lock, "utf8"))
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isRunning(holder)) throw inUse(holder)
      writeFileSync(lock, String(process.pid))
    }
    claimedHere.add(this.path)
  }

  /** Gives the file up without saving (a sandbox that never started). */
  release(): void {
    if (!claimedHere.delete(this.path)) return
    rmSync(`${this.path}.lock`, { force: true })
  }

  /**
   * Reads and decodes the saved state; undefined when there is none yet. Anything unreadable is an
   * error naming the file: starting fresh would lose the account a store is configured with.
   */
  read<T>(decode: (text: string) => T): T | undefined {
    let text: string
    try {
      if (!existsSync(this.path)) return undefined
      text = readFileSync(this.path, "utf8")
    } catch (error) {
      throw new Error(`Cannot read the sandbox state file ${this.path}: ${(error as Error).message}`)
    }
    try {
      return decode(text)
    } catch (error) {
      throw new Error(
        `The sandbox state file ${this.path} is damaged (${(error as Error).message}). Move it away to start afresh, or use --memory.`
      )
    }
  }

  /** From now on `changed()` saves what `snapshot` answers; saves once at once, so a new account is kept. */
  async start(snapshot: () => string): Promise<void> {
    this.snapshot = snapshot
    await this.save()
  }

  readonly changed = (): void => {
    if (this.snapshot && !this.timer) {
      this.timer = setTimeout(() => {
        this.save().catch((error: Error) => this.log(`could not save the sandbox state to ${this.path}: ${error.message}`))
      }, WRITE_DELAY_MS)
      this.timer.unref()
    }
  }

  /** Writes what is pending, stops saving and gives the file up. */
  async close(): Promise<void> {
    if (this.snapshot) {
      await this.save()
      this.snapshot = undefined
    }
    this.release()
  }

  /** One write at a time, each of the state as it is when its turn comes. */
  private save(): Promise<void> {
    clearTimeout(this.timer)
    this.timer = undefined
    const write = this.writing.catch(() => undefined).then(() => this.write())
    this.writing = write
    return write
  }

  private async write(): Promise<void> {
    if (!this.snapshot) return
    const text = this.snapshot()
    const temporary = `${this.path}.${process.pid}.tmp`
    const file = await open(temporary, "w", 0o600)
    try {
      await file.writeFile(text)
      await file.sync()
    } finally {
      await file.close()
    }
    await rename(temporary, this.path)
  }
}
