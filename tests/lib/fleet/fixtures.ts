// Shared pieces for the fleet tests: an order, a FleetService over an in-memory store, and
// an MQTT subscriber that records what it receives.
import { connect, type MqttClient } from 'mqtt'
import { ManualClock } from '../../helpers/manual-clock.ts'
import { ChangeLog } from '../../../lib/changes/change-log.ts'
import { fleetConfigSchema } from '../../../lib/fleet/config.ts'
import { FleetService } from '../../../lib/fleet/service.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import type { ActiveOrder } from '../../../lib/orders/types.ts'
import { Store } from '../../../lib/store/db.ts'
import type { UpgradeSummary } from '../../../lib/release/summary.ts'
import { sampleOrder } from '../../helpers/orders.ts'

export function order(name: number, overrides: Partial<ActiveOrder> = {}): ActiveOrder {
  return sampleOrder(name, undefined, { tracking: false, ...overrides })
}

export async function fleetService(
  fleet: Record<string, unknown>,
  options: { store?: Store; clock?: ManualClock; timezone?: string; targetSeconds?: number; upgrade?: UpgradeSummary } = {},
) {
  const clock = options.clock ?? new ManualClock()
  const store = options.store ?? new Store()
  const logs = memoryLogger()
  const service = await FleetService.open({
    config: fleetConfigSchema.parse(fleet),
    store,
    identity: { deviceId: 'TG-TEST', version: '0.1.0', startedAt: clock.now() },
    clock,
    log: logs.log,
    timezone: () => options.timezone ?? 'UTC',
    ...(options.targetSeconds === undefined ? {} : { targetSeconds: () => options.targetSeconds! }),
    upgrade: () => options.upgrade ?? null,
    batchSize: 3,
  })
  const changes = await ChangeLog.open(await store.collection('seq'), clock, { sinks: [service.sink] })
  return { service, changes, clock, store, logs }
}

export interface Received {
  topic: string
  body: Record<string, any>
  retain: boolean
}

export async function subscriber(url: string, filter: string, options: { clientId?: string; clean?: boolean } = {}) {
  const received: Received[] = []
  const client: MqttClient = connect(url, {
    clientId: options.clientId ?? `test-sub-${Math.random().toString(16).slice(2)}`,
    clean: options.clean ?? true,
    reconnectPeriod: 100,
    protocolVersion: 4,
  })
  client.on('error', () => {})
  client.on('message', (topic, payload, packet) => {
    received.push({ topic, body: JSON.parse(payload.toString('utf8')), retain: packet.retain })
  })
  await new Promise<void>((resolve, reject) => {
    client.once('connect', () => client.subscribe(filter, { qos: 1 }, (error) => (error ? reject(error) : resolve())))
  })
  return {
    client,
    received,
    on: (suffix: string) => received.filter((message) => message.topic.endsWith(suffix)),
    close: () => client.endAsync(true),
  }
}

/**
 * Duplicates are allowed; order is not: every seq that arrives for the first time must be
 * greater than every seq before it. Returns the distinct seqs in arrival order.
 */
export function firstArrivals(seqs: number[]): { distinct: number[]; outOfOrder: number[] } {
  const seen = new Set<number>()
  const distinct: number[] = []
  const outOfOrder: number[] = []
  for (const seq of seqs) {
    if (seen.has(seq)) continue
    if (distinct.length && seq < distinct[distinct.length - 1]) outOfOrder.push(seq)
    seen.add(seq)
    distinct.push(seq)
  }
  return { distinct, outOfOrder }
}
