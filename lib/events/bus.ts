// A small typed event bus. A failing listener is logged and never breaks the emitter or
// the other listeners: an HTTP answer must not depend on a WebSocket client's health.
import type { Logger } from '../kernel/log.ts'

export type Listener<T> = (payload: T) => void | Promise<void>

export class EventBus<Events extends Record<string, unknown>> {
  #listeners = new Map<keyof Events, Set<Listener<never>>>()
  readonly #log: Logger | undefined

  constructor(log?: Logger) {
    this.#log = log
  }

  on<K extends keyof Events>(event: K, listener: Listener<Events[K]>): () => void {
    let set = this.#listeners.get(event)
    if (!set) this.#listeners.set(event, (set = new Set()))
    set.add(listener as Listener<never>)
    return () => set.delete(listener as Listener<never>)
  }

  emit<K extends keyof Events>(event: K, payload: Events[K]): void {
    for (const listener of this.#listeners.get(event) ?? []) {
      try {
        const result = (listener as Listener<Events[K]>)(payload)
        if (result instanceof Promise) result.catch((error: unknown) => this.#report(event, error))
      } catch (error) {
        this.#report(event, error)
      }
    }
  }

  #report(event: keyof Events, error: unknown): void {
    this.#log?.error({ err: error, event: String(event) }, 'event listener failed')
  }
}
