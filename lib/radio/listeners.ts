// The radio's event listeners: one set per event; a listener that throws is logged and the
// others still run.
import type { Logger } from '../kernel/log.ts'
import type { RadioEvents, RadioListener } from './radio.ts'

type Listeners = { [K in keyof RadioEvents]?: Set<RadioListener<K>> }

export class RadioListeners {
  readonly #listeners: Listeners = {}
  readonly #log: Logger

  constructor(log: Logger) {
    this.#log = log
  }

  on<K extends keyof RadioEvents>(event: K, listener: RadioListener<K>): () => void {
    let set = this.#listeners[event] as Set<RadioListener<K>> | undefined
    if (!set) (this.#listeners as Record<string, unknown>)[event] = set = new Set()
    set.add(listener)
    return () => set.delete(listener)
  }

  emit<K extends keyof RadioEvents>(event: K, payload: RadioEvents[K]): void {
    for (const listener of (this.#listeners[event] ?? []) as Set<RadioListener<K>>) {
      try {
        listener(payload)
      } catch (error) {
        this.#log.error({ err: error, event }, 'radio listener failed')
      }
    }
  }
}
