// The order side's background parts, in start-up order: the radio, then the paging
// scheduler (resume(): re-arms paging of orders paged before a restart and records
// the ORDER_CLEARED of a clear a crash interrupted).
import type { Part } from '../wiring/lifecycle.ts'
import type { Services } from '../wiring/services.ts'

export function radioPart(services: Services): Part {
  return {
    name: 'radio',
    start: () => services.radio.start(),
    stop: () => services.radio.stop(),
  }
}

export function pagingPart(services: Services): Part {
  return {
    name: 'scheduler',
    start: () => services.orders.resume(),
    stop: async () => {
      // A lunch rush makes no more moves once the gateway is stopping.
      services.rush.stop()
      services.paging.close()
      // Let radio work already queued finish before the radio stops.
      await services.orders.idle()
      await services.paging.idle()
    },
  }
}
