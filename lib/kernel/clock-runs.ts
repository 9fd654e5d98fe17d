// What the data dir knows about the clocks of the gateway's runs (docs/api.md, "Clock"). A
// box without a real-time clock may boot after a power cut with its clock a day behind, so
// every run takes its times on a clock of its own (lib/orders/stamps.ts). Kept here:
//
//  - this run's id, which every time it takes is tagged with;
//  - the high-water mark: the latest time the gateway's clock read while it was known right
//    (or nothing said otherwise), noted every minute, at each step and when trust changes.
//    With the times the active orders hold, it is a time the clock has certainly passed: a
//    boot on a clock behind it is a clock known wrong (clock-watch.ts startBehind). Once the
//    system says its clock is synchronised, its time is the mark, also when that is lower;
//  - the runs whose clock was not known to be right when they last said (the system said
//    "not synchronised" and no board set the time, or the run started behind the
//    high-water mark) and so took times no later step can mend.
//
// One small JSON file, replaced whole (written, synced, renamed); without a file (a test's
// memory-only gateway) the same in memory.
import { randomUUID } from 'node:crypto'
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs'
import type { Logger } from './log.ts'

interface RunsFile {
  highWater: number
  /** Runs whose clock was last known not right, newest last. */
  unsureRuns: string[]
}

/** Unsure runs remembered; an order lives hours, not hundreds of restarts. */
const keptUnsureRuns = 100

export class ClockRuns {
  /** This run's id: short, random (a lost file never makes two runs one). */
  readonly id = randomUUID().slice(0, 8)
  readonly #file: string | undefined
  readonly #log: Logger | undefined
  /** The mark earlier runs left. */
  #earlier: number
  /** The latest time this run's clock read while known right; moved with its stamps by a step. */
  #mine = 0
  #unsureRuns: string[]
  #sure = true
  #right = false

  private constructor(file: string | undefined, data: RunsFile, log: Logger | undefined) {
    this.#file = file
    this.#earlier = data.highWater
    this.#unsureRuns = data.unsureRuns
    this.#log = log
  }

  /** Reads the file (none, or unreadable: nothing known, said in the log). */
  static open(file: string | undefined, log?: Logger): ClockRuns {
    let data: RunsFile = { highWater: 0, unsureRuns: [] }
    if (file !== undefined) {
      try {
        const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<RunsFile>
        data = {
          highWater: Number.isFinite(parsed.highWater) ? Number(parsed.highWater) : 0,
          unsureRuns: Array.isArray(parsed.unsureRuns) ? parsed.unsureRuns.filter((run) => typeof run === 'string') : [],
        }
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
          log?.warn({ err: error, file }, 'the clock runs file is unreadable; starting without its high-water mark')
      }
    }
    return new ClockRuns(file, data, log)
  }

  /** The latest time noted by any run (0: none). */
  get highWater(): number {
    return Math.max(this.#earlier, this.#mine)
  }

  /** The mark earlier runs left (this run's own clock is what a step corrects). */
  get earlierHighWater(): number {
    return this.#earlier
  }

  /**
   * At start: the times the data dir holds from runs not known wrong (the active orders')
   * were certainly passed too. Folded into the earlier runs' mark, so that clearing such an
   * order in this run does not lower the mark below the start of its history row.
   */
  raiseEarlier(time: number): void {
    this.#earlier = Math.max(this.#earlier, time)
  }

  /** Whether this run's clock is known right now: the system says synchronised (clock-watch.ts). */
  right(): boolean {
    return this.#right
  }

  noteRight(right: boolean): void {
    this.#right = right
  }

  /** Whether times a run took were taken on a clock not known to be right. */
  isUnsure(run: string): boolean {
    return run === this.id ? !this.#sure : this.#unsureRuns.includes(run)
  }

  /** This run's clock is (or is no longer) known right; written when that changes. */
  noteSure(sure: boolean, now: number): void {
    if (sure === this.#sure) return
    this.#sure = sure
    const others = this.#unsureRuns.filter((run) => run !== this.id)
    this.#unsureRuns = sure ? others : [...others, this.id].slice(-keptUnsureRuns)
    if (sure) this.#mine = Math.max(this.#mine, now)
    this.#write()
  }

  /** The clock, known right, reads `now`: raises the high-water mark. */
  noteTime(now: number): void {
    if (!this.#sure || now <= this.#mine) return
    this.#mine = now
    this.#write()
  }

  /** A step moved this run's clock and stamps by deltaMs: the mark it noted moves with them. */
  shifted(deltaMs: number): void {
    if (this.#mine === 0 || deltaMs === 0) return
    this.#mine += deltaMs
    this.#write()
  }

  /**
   * The system says its clock is synchronised and the gateway follows it: `now` is the mark,
   * also below one a wrong clock of an earlier run left.
   */
  noteSynchronized(now: number): void {
    this.#earlier = 0
    this.#mine = now
    this.#write()
  }

  #write(): void {
    if (this.#file === undefined) return
    const data: RunsFile = { highWater: this.highWater, unsureRuns: this.#unsureRuns }
    const temporary = `${this.#file}.tmp`
    try {
      const fd = openSync(temporary, 'w', 0o600)
      try {
        writeSync(fd, `${JSON.stringify(data)}\n`)
        fsyncSync(fd)
      } finally {
        closeSync(fd)
      }
      renameSync(temporary, this.#file)
    } catch (error) {
      // A full disk: the mark stays in memory; the active orders' own times still bound the next boot.
      this.#log?.warn({ err: error }, 'writing the clock runs file failed')
    }
  }
}
