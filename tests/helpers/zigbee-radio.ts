// A ZigbeeRadio on the real herdsman Controller over the fake coordinator, with the devices
// the radio tests share and a helper to wait for herdsman's asynchronous work.
import type { Test } from 'tap'
import { ManualClock } from './manual-clock.ts'
import { memoryLogger } from './memory-logger.ts'
import type { RadioEvents } from '../../lib/radio/radio.ts'
import { ZigbeeRadio, type ZigbeeRadioOptions } from '../../lib/radio/zigbee.ts'
import type { ChannelSource } from '../../lib/radio/zigbee-process.ts'
import { EventBus, type Listener } from '../../lib/kernel/events.ts'
import { ieeeToAddress, trackerCluster } from '../../lib/radio/zigbee-profile.ts'
import { type FakeAdapter, type FakeDevice, type FakeFamily, installFakeAdapter, instantHerdsmanWaits } from './zigbee-fake-adapter.ts'
import { until } from './until.ts'

export const tracker: FakeDevice = {
  ieee: '0x00124b00aabbccdd',
  nwk: 0x1234,
  type: 'EndDevice',
  inClusters: [0x0000, 0x0001, 0x0003, 0xfc00],
  basic: { modelId: 'TRACKER-1', manufacturerName: 'Acme', powerSource: 3, zclVersion: 8, swBuildId: '1.0.0' },
}
export const repeater: FakeDevice = {
  ieee: '0x00124b0011223344',
  nwk: 0x4321,
  type: 'Router',
  inClusters: [0x0000, 0x0003],
  basic: { modelId: 'REPEATER-2', manufacturerName: 'Acme', powerSource: 1, zclVersion: 8, swBuildId: '2.1.0', hwVersion: 3 },
}
export const starter: FakeDevice = {
  ieee: '0x00124b0055667788',
  nwk: 0x5555,
  type: 'Router',
  inClusters: [0x0000, 0xfc00],
  basic: { modelId: 'STARTER-1', manufacturerName: 'Acme', powerSource: 1, zclVersion: 8 },
}
export const custom = { trkTracker: trackerCluster(0xfff1) } as never

export class TestChannel implements ChannelSource {
  value = 15
  readonly #events = new EventBus<{ changed: number }>()
  channel() {
    return this.value
  }
  on(event: 'changed', listener: Listener<number>) {
    return this.#events.on(event, listener)
  }
  set(value: number) {
    this.value = value
    this.#events.emit('changed', value)
  }
}

/** Lets herdsman's real async work (interviews, frame parsing) finish. */

export async function setup(t: Test, options: { failStarts?: number; radio?: Partial<ZigbeeRadioOptions>; family?: FakeFamily } = {}) {
  const fake = installFakeAdapter({ family: options.family })
  const herdsmanWaits = instantHerdsmanWaits()
  if (options.failStarts) fake.failNextStarts(options.failStarts)
  const dataDir = t.testdir()
  const clock = new ManualClock()
  const logs = memoryLogger('info')
  const radio = new ZigbeeRadio({ dataDir, clock, channel: 15, log: logs.log, checkIntervalMs: 0, ...options.radio })
  const events: { [K in keyof RadioEvents]: RadioEvents[K][] } = {
    trackerStarted: [],
    trackerLocated: [],
    trackerCleared: [],
    trackerSeen: [],
    repeaterJoined: [],
    deviceLeft: [],
    status: [],
  }
  for (const name of Object.keys(events) as (keyof RadioEvents)[]) radio.on(name, (event) => void events[name].push(event as never))
  t.teardown(async () => {
    await radio.stop()
    fake.restore()
    herdsmanWaits.restore()
  })
  return { fake, dataDir, clock, radio, events, logs, waits: herdsmanWaits.waits }
}

/** The radio logged `message` about `device` (info level and up). */
export function logged(logs: { lines(): Record<string, unknown>[] }, device: FakeDevice, message: string): boolean {
  const address = ieeeToAddress(device.ieee)
  return logs.lines().some((line) => line.address === address && line.msg === message)
}

export const configuredMessage = 'zigbee device bound to the coordinator and its reporting configured'

/**
 * Joins a device and waits until the radio is done with it: interviewed, and for trackers
 * and units also bound and configured.
 */
export async function joinAndSettle(context: { logs: { lines(): Record<string, unknown>[] } }, adapter: FakeAdapter, device: FakeDevice): Promise<void> {
  adapter.join(device)
  const ours = device.inClusters.includes(0xfc00)
  await until(() => logged(context.logs, device, ours ? configuredMessage : 'zigbee device joined'), `${device.ieee} settled`)
}

/**
 * What the radio process's supervisor (zigbee-process.ts) does on a channel change, here in
 * one process: the running radio announces the move, stops, and a new one starts on it.
 */
export async function restartOn(
  t: Test,
  context: { radio: ZigbeeRadio; dataDir: string; clock: ManualClock; logs: { log: ZigbeeRadioOptions['log'] } },
  channel: number,
): Promise<ZigbeeRadio> {
  await context.radio.announceChannel(channel)
  await context.radio.stop()
  const radio = new ZigbeeRadio({ dataDir: context.dataDir, clock: context.clock, channel, log: context.logs.log, checkIntervalMs: 0 })
  t.teardown(() => radio.stop())
  await radio.start()
  return radio
}
