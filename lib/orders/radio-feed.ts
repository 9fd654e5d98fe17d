// Feeds what the radio reports into the orders service (which also keeps the tracker
// inventory). Each event is queued by the service as it arrives, so their order holds.
import type { Radio } from '../radio/radio.ts'
import type { OrdersService } from './service.ts'

/** Subscribes the orders service to the radio; returns the unsubscribe function. */
export function feedRadioEvents(radio: Radio, orders: OrdersService): () => void {
  const offs = [
    radio.on('trackerStarted', (event) => void orders.trackerStarted(event)),
    radio.on('trackerLocated', (event) => void orders.trackerLocated(event)),
    radio.on('trackerCleared', (event) => void orders.trackerCleared(event)),
    radio.on('trackerSeen', (event) => void orders.trackerSeen(event)),
    radio.on('deviceLeft', (event) => void orders.deviceLeft(event)),
  ]
  return () => {
    for (const off of offs) off()
  }
}
