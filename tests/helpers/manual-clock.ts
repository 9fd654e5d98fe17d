// A clock that only moves when a test calls advance(), so timer-driven code (paging
// leases, token windows, retries) is tested by moving time instead of sleeping.
import type { Clock, TimerHandle } from '../../lib/kernel/clock.ts'

interface ManualTimer {
  id: number
  at: number
  fn: () => void
}

/** A clock that only moves when a test calls advance(). */
export class ManualClock implements Clock {
  #now: number
  #timers: ManualTimer[] = []
  #nextId = 1

  constructor(start: number | string = '2026-11-22T12:00:00Z') {
    this.#now = typeof start === 'number' ? start : Date.parse(start)
  }

  now(): number {
    return this.#now
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.#nextId++
    this.#timers.push({ id, at: this.#now + Math.max(0, ms), fn })
    return { id }
  }

  clearTimeout(handle: TimerHandle | undefined): void {
    if (!handle) return
    this.#timers = this.#timers.filter((t) => t.id !== handle.id)
  }

  /** Timers still waiting to fire. */
  get pending(): number {
    return this.#timers.length
  }

  /**
   * Moves time forward, firing due timers in order. Between timers it yields to the event
   * loop so promise chains started by one timer settle before the next fires.
   */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms
    for (;;) {
      await settle()
      const due = this.#timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at || a.id - b.id)[0]
      if (!due) break
      this.#timers = this.#timers.filter((t) => t !== due)
      this.#now = Math.max(this.#now, due.at)
      due.fn()
    }
    this.#now = target
    await settle()
  }
}

/** Lets pending promise callbacks and I/O callbacks run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
}
