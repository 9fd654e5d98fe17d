// How a function presents domain records: bound to the API version, the clock's now and the
// gateway's timezone once per request (ctx.present), so a function writes
// ctx.present.activeOrder(order), not v2View(ctx.services)(order).
import type { Clock } from '../kernel/clock.ts'
import { trackerView } from './present-tracker.ts'
import { presentToken } from './present-token.ts'
import { formatWithOffset } from '../kernel/time.ts'
import type { ApiVersion } from './envelope.ts'
import { activeOrderV1, activeOrderV2, orderSummary } from './present-order.ts'
import type { Presenter } from './wire-types.ts'
import type { TokenRecord } from '../tokens/types.ts'

export type { Presenter } from './wire-types.ts'

export interface PresenterDeps {
  clock: Pick<Clock, 'now'>
  settings: { timezone: string }
}

export function presenter(version: ApiVersion, deps: PresenterDeps): Presenter {
  return new RequestPresenter(version, deps.clock.now(), deps.settings.timezone)
}

/**
 * The presenter is built for every request that asks for ctx.present; most only read its
 * timezone or one of its members. So the members are made on first use (each bound, so
 * `items.map(ctx.present.activeOrder)` works), not seven closures per request (issue 30).
 */
class RequestPresenter implements Presenter {
  readonly now: number
  readonly timezone: string
  readonly #version: ApiVersion
  #activeOrder: Presenter['activeOrder'] | undefined
  #orderSummary: Presenter['orderSummary'] | undefined
  #token: Presenter['token'] | undefined
  #tracker: Presenter['tracker'] | undefined
  #time: Presenter['time'] | undefined

  constructor(version: ApiVersion, now: number, timezone: string) {
    this.#version = version
    this.now = now
    this.timezone = timezone
  }

  get activeOrder(): Presenter['activeOrder'] {
    if (!this.#activeOrder) {
      const options = { now: this.now, timezone: this.timezone }
      const active = this.#version === 'v1' ? activeOrderV1 : activeOrderV2
      this.#activeOrder = (order) => active(order, options)
    }
    return this.#activeOrder
  }

  get orderSummary(): Presenter['orderSummary'] {
    const timezone = this.timezone
    return (this.#orderSummary ??= (summary) => orderSummary(summary, timezone))
  }

  get token(): Presenter['token'] {
    const timezone = this.timezone
    // One closure for both overloads: presentToken includes `token` exactly when it is given.
    return (this.#token ??= ((record: TokenRecord, fullToken?: string) => presentToken(record, timezone, fullToken)) as Presenter['token'])
  }

  get tracker(): Presenter['tracker'] {
    const { timezone, now } = this
    return (this.#tracker ??= (record) => trackerView(record, timezone, now))
  }

  get time(): Presenter['time'] {
    const timezone = this.timezone
    return (this.#time ??= (ms) => (ms === null ? null : formatWithOffset(ms, timezone)))
  }
}
