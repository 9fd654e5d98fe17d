// The fleet bridge as a part of the running gateway: connects to the MQTT broker at start
// (never blocking start-up: the broker may be away) and, at stop, marks the site offline
// before the store is flushed.
import type { Part } from '../wiring/lifecycle.ts'
import type { Services } from '../wiring/services.ts'

export function fleetPart(services: Services): Part {
  return {
    name: 'fleet',
    start: async () => {
      services.fleet.start()
    },
    stop: () => services.fleet.stop(),
  }
}
