// Clears with a few seconds to change one's mind: a cleared card shows "Undo" and the clear
// is sent to the gateway only when that window ends (or at once when the page is closed).
// Timers are injected so tests run it without waiting.
export const undoWindowMs = 5000

export class PendingClears {
  #pending = new Map()

  /**
   * @param {{ send: (order: object, options?: { keepalive?: boolean }) => Promise<unknown>, onChange: () => void,
   *   onFailed: (order: object, error: unknown) => void, delayMs?: number, now?: () => number,
   *   setTimer?: typeof setTimeout, clearTimer?: typeof clearTimeout }} deps
   */
  constructor(deps) {
    // Wrapped: the browser's timer functions refuse to be called as methods of another object.
    const defaults = { delayMs: undoWindowMs, now: () => Date.now(), setTimer: (fn, ms) => setTimeout(fn, ms), clearTimer: (id) => clearTimeout(id) }
    this.deps = { ...defaults, ...deps }
  }

  /** Starts the undo window of `order`'s clear. */
  start(order) {
    if (this.#pending.has(order.uuid)) return
    const { delayMs, setTimer, now } = this.deps
    const timer = setTimer(() => this.#send(order.uuid), delayMs)
    this.#pending.set(order.uuid, { order, timer, endsAt: now() + delayMs })
    this.deps.onChange()
  }

  /** Takes the clear back; true when it had not been sent yet. */
  undo(uuid) {
    const entry = this.#pending.get(uuid)
    if (!entry) return false
    this.deps.clearTimer(entry.timer)
    this.#pending.delete(uuid)
    this.deps.onChange()
    return true
  }

  /** The order left the board another way (cleared elsewhere): nothing to send. */
  forget(uuid) {
    const entry = this.#pending.get(uuid)
    if (!entry) return
    this.deps.clearTimer(entry.timer)
    this.#pending.delete(uuid)
  }

  has(uuid) {
    return this.#pending.has(uuid)
  }

  /** Whole seconds left in the undo window of `uuid` (0 when none). */
  secondsLeft(uuid) {
    const entry = this.#pending.get(uuid)
    return entry ? Math.max(0, Math.ceil((entry.endsAt - this.deps.now()) / 1000)) : 0
  }

  /** Sends every pending clear now (the page is going away: keepalive lets them finish). */
  flush() {
    for (const uuid of [...this.#pending.keys()]) this.#send(uuid, { keepalive: true })
  }

  async #send(uuid, options) {
    const entry = this.#pending.get(uuid)
    if (!entry) return
    this.deps.clearTimer(entry.timer)
    this.#pending.delete(uuid)
    try {
      await this.deps.send(entry.order, options)
    } catch (error) {
      this.deps.onFailed(entry.order, error)
    } finally {
      this.deps.onChange()
    }
  }
}
