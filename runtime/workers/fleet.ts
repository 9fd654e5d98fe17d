// The fleet bridge as a part of the running gateway: connects to the MQTT broker at start
// (never blocking start-up: the broker may be away) and, at stop, marks the site offline
// before the store is flushed.
import type { Part } from '../wiring/lifecycle.ts'
import type { Services } from '../wiring/services.ts'
import { hqTrust } from '../../lib/fleet/config.ts'
import { installLayout } from '../upgrade/layout.ts'
import { RolloutAgent } from './rollout.ts'

export function fleetPart(services: Services): Part {
  return {
    name: 'fleet',
    start: async () => {
      services.fleet.start()
    },
    stop: () => services.fleet.stop(),
  }
}

/**
 * HQ's rollouts (runtime/workers/rollout.ts): attached before the fleet connects, so the
 * retained command waiting on the broker is taken at once; only with the fleet enabled.
 */
export function rolloutPart(services: Services): Part {
  let agent: RolloutAgent | undefined
  return {
    name: 'rollout',
    start: async () => {
      const { config } = services
      if (!services.fleet.enabled || !config.fleet.rollout.enabled) return
      agent = new RolloutAgent({
        config: config.fleet.rollout,
        dataDir: config.dataDir,
        layout: installLayout(),
        hqTrust: () => hqTrust(config.fleet),
        runningVersion: services.identity.version,
        timezone: () => services.settings.timezone,
        activeOrders: () => services.orders.list().length,
        changed: () => services.fleet.statusChanged(),
        log: services.log,
      })
      services.fleet.attachRollout(agent)
      agent.start()
    },
    stop: async () => agent?.stop(),
  }
}
