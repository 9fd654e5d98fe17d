// Every read of "now" and every timer goes through a Clock, so tests can move time by hand
// (tests/helpers/manual-clock.ts) instead of sleeping.

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
