// The one way a part of the gateway is told that something happened elsewhere: a typed
// event bus. Every publisher (the radio, the change log, settings, tokens, webhooks) owns
// one and offers its `on` as `Subscribable`; subscribers get an unsubscribe function back.
// A failing listener is logged and never breaks the emitter or the other listeners: an
// HTTP answer must not depend on a WebSocket client's health.
//
// Not for work a change must wait for: the change log's durable sinks (webhook and fleet
// outboxes) are part of recording a change and are given to it when it is built.
import type { Logger } from './log.ts'

/** What a listener returns is ignored; a promise it returns is only watched for failure. */
export type Listener<T> = (payload: T) => unknown
export type Unsubscribe = () => void

/** What a subscriber sees of a publisher: events by name, each with its payload type. */
export interface Subscribable<Events extends object> {
  on<K extends keyof Events>(event: K, listener: Listener<Events[K]>): Unsubscribe
}

export class EventBus<Events extends object> implements Subscribable<Events> {
  readonly #listeners = new Map<keyof Events, Set<Listener<never>>>()
  readonly #log: Logger | undefined

  /** Without a logger a failing listener is only contained (tests, stand-alone parts). */
  constructor(log?: Logger) {
    this.#log = log
  }

  on<K extends keyof Events>(event: K, listener: Listener<Events[K]>): Unsubscribe {
    let set = this.#listeners.get(event)
    if (!set) this.#listeners.set(event, (set = new Set()))
    // Wrapped, so one function subscribed twice is two subscriptions, each removed on its own.
    const entry: Listener<Events[K]> = (payload) => listener(payload)
    set.add(entry as Listener<never>)
    return () => void set.delete(entry as Listener<never>)
  }

  /** Calls every listener of the event now, in the order they subscribed. */
  emit<K extends keyof Events>(event: K, payload: Events[K]): void {
    const set = this.#listeners.get(event)
    if (!set) return
    for (const listener of set) {
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
