// Who hears what. Every publisher offers `on(event, listener)` (lib/kernel/events.ts); this
// file makes every subscription between services that lasts as long as they do, once, from
// buildServices(). The background parts subscribe in their start() and unsubscribe in stop(),
// because they exist only while the gateway serves:
//
//   publisher          event            heard by
//   radio              tracker*, deviceLeft  orders service (here)
//   radio              repeaterJoined, deviceLeft  repeater inventory (here)
//   radio              status           repeater status (here), pairing windows (workers/pairing.ts),
//                                       the fleet's status message (fleetFollowsRadio, here)
//   settings           changed          the Zigbee radio's channel (presetChannel, here; the radio
//                                       process subscribes when it starts)
//   change log         recorded         WebSocket hub (host/ws.ts), after the durable sinks,
//                                       which are given to the change log in services.ts
//   tokens             revoked          WebSocket hub (ends that token's sessions)
//   webhooks           enqueued         webhook dispatcher (workers/webhook-dispatcher.ts)
import type { FleetService } from '../../lib/fleet/service.ts'
import type { RepeaterInventory } from '../../lib/inventory/repeaters.ts'
import type { OrdersService } from '../../lib/orders/service.ts'
import type { Radio } from '../../lib/radio/radio.ts'
import type { ChannelSource } from '../../lib/radio/zigbee-process.ts'
import { channelOfPreset, type SettingsService } from '../../lib/settings/service.ts'

/**
 * The orders service and the repeater inventory follow the radio. The orders service queues
 * each event as it arrives, so their order holds; a failed write is logged by the radio's bus.
 */
export function followRadio(radio: Radio, parts: { orders: OrdersService; repeaters: RepeaterInventory }): void {
  const { orders, repeaters } = parts
  radio.on('trackerStarted', (event) => orders.trackerStarted(event))
  radio.on('trackerLocated', (event) => orders.trackerLocated(event))
  radio.on('trackerCleared', (event) => orders.trackerCleared(event))
  radio.on('trackerSeen', (event) => orders.trackerSeen(event))
  radio.on('deviceLeft', (event) => orders.deviceLeft(event))
  radio.on('repeaterJoined', (event) => repeaters.record(event))
  radio.on('deviceLeft', ({ address }) => repeaters.forget(address))
}

/**
 * Whether the radio is up, as last reported, for answers that cannot wait on the radio.
 * `changed` hears each move between up and down (not a repeated status).
 */
export function radioUpFlag(radio: Radio, changed?: (up: boolean) => void): () => boolean {
  let up = false
  const set = (next: boolean) => {
    if (next === up) return
    up = next
    changed?.(up)
  }
  radio.on('status', (status) => set(status.up))
  // A radio already up before this subscription reports it only here.
  void radio.info().then(
    (info) => set(info.up),
    () => {},
  )
  return () => up
}

/**
 * The fleet's retained status message says whether the radio works (headquarters alerts on
 * a radio down), and is published again as soon as the radio goes up or down.
 */
export function fleetFollowsRadio(radio: Radio, fleet: FleetService): void {
  fleet.reportRadio({ kind: radio.kind, up: radioUpFlag(radio, () => fleet.statusChanged()) })
}

/** The Zigbee radio's channel follows the zigbeePreset setting: 'changed' only when it moves. */
export function presetChannel(settings: SettingsService): ChannelSource {
  const channel = () => channelOfPreset(settings.get().zigbeePreset)
  return {
    channel,
    on: (_event, listener) => {
      let current = channel()
      return settings.on('changed', (next) => {
        const wanted = channelOfPreset(next.zigbeePreset)
        if (wanted === current) return
        current = wanted
        return listener(wanted)
      })
    },
  }
}
