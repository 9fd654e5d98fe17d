// Every read of "now" and every timer goes through a Clock, so tests can move time by hand
// (ManualClock) instead of sleeping.

export interface TimerHandle {
  readonly id: number
}

export interface Clock {
  now(): number
  setTimeout(fn: () => void, ms: number): TimerHandle
  clearTimeout(handle: TimerHandle | undefined): void
}

export class SystemClock implements Clock {
  #timers = new Map<number, NodeJS.Timeout>()
  #nextId = 1

  now(): number {
    return Date.now()
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.#nextId++
    const timer = setTimeout(() => {
      this.#timers.delete(id)
      fn()
    }, ms)
    timer.unref?.()
    this.#timers.set(id, timer)
    return { id }
  }

  clearTimeout(handle: TimerHandle | undefined): void {
    if (!handle) return
    const timer = this.#timers.get(handle.id)
    if (timer) clearTimeout(timer)
    this.#timers.delete(handle.id)
  }
}

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
      const due = this.#timers
        .filter((t) => t.at <= target)
        .sort((a, b) => a.at - b.at || a.id - b.id)[0]
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
