// The radio process: hosts one ZigbeeRadio (and with it zigbee-herdsman and the serial port)
// for the gateway, which forks this file (zigbee-process.ts). Radio calls and events travel
// over the IPC channel. The process ends when the radio cannot go on (a failed start, an
// adapter disconnect, a failed coordinator check), when asked to stop, and when the gateway
// is gone (its IPC channel closes), so the port and herdsman's state never outlive it.
import { SystemClock } from '../kernel/clock.ts'
import { createLogger } from '../kernel/log.ts'
import { trimMemory } from '../kernel/memory-trim.ts'
import type { RadioEvents } from './radio.ts'
import { ZigbeeRadio } from './zigbee.ts'
import { radioCalls, toWireError, type ChildMessage, type ParentMessage, type ZigbeeChildOptions } from './zigbee-ipc.ts'

const memoryReportMs = 60_000
/** Every radio event but 'status' (the gateway side knows its radio's state better). */
const forwarded = ['trackerStarted', 'trackerLocated', 'trackerCleared', 'trackerSeen', 'repeaterJoined', 'deviceLeft'] as const
// Fails to type-check when RadioEvents gains an event this list does not forward.
const forwardsAll: Exclude<keyof RadioEvents, 'status' | (typeof forwarded)[number]> extends never ? true : never = true
void forwardsAll

function send(message: ChildMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.connected) return resolve()
    process.send!(message, undefined, undefined, () => resolve())
  })
}

/** Ends the process once the parent has the reason: exit closes the port whatever herdsman holds. */
async function fatal(reason: string): Promise<never> {
  await send({ type: 'fatal', reason })
  process.exit(1)
}

async function main(): Promise<void> {
  // Loading herdsman (its ZCL definitions above all) leaves garbage the process would keep
  // for life: collected before the radio starts, about 5 MB less resident idle and 4 MB
  // less at the peak of an adapter's start (docs/decisions/0010-radio-process-flags.md).
  // Unlike the gateway, it keeps no nextTick entry first (runtime/wiring/tick-shape.ts):
  // the microseconds that saves a tick do not count at a few messages a second.
  const trimmed = trimMemory()
  const options = JSON.parse(process.argv[2] ?? '{}') as ZigbeeChildOptions
  const log = createLogger({ level: options.logLevel, destination: { write: (line: string) => void send({ type: 'log', line }) } })
  if (trimmed)
    log.debug({ heapBefore: trimmed.heapBefore, heapAfter: trimmed.heapAfter, pauseMs: Math.round(trimmed.pauseMs) }, 'garbage of loading herdsman collected')
  const radio = new ZigbeeRadio({
    ...options,
    clock: new SystemClock(),
    log,
    onLost: (reason) => void fatal(reason),
  })
  for (const name of forwarded) radio.on(name, (payload) => void send({ type: 'event', name, payload }))
  process.on('disconnect', () => process.exit(0))
  // The gateway decides when its radio stops (cleanly, database saved): a SIGTERM or SIGINT
  // sent to the whole process group (systemd's stop, Ctrl-C) is left to it.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => {})
  process.on('message', (message: ParentMessage) => void handle(radio, message))
  try {
    await radio.start()
  } catch (error) {
    log.flush()
    return fatal((error as Error).message)
  }
  await send({ type: 'up', info: await radio.info(), rss: process.memoryUsage().rss })
  setInterval(() => void send({ type: 'memory', rss: process.memoryUsage().rss }), memoryReportMs).unref()
}

async function handle(radio: ZigbeeRadio, message: ParentMessage): Promise<void> {
  if (message.type === 'stop') {
    await radio.stop()
    process.exit(0)
  }
  if (message.type !== 'call') return
  const { id, method, args } = message
  try {
    if (!radioCalls.includes(method)) throw new Error(`unknown radio call ${method}`)
    const value = await (radio[method] as (...a: unknown[]) => Promise<unknown>)(...args)
    await send({ type: 'result', id, value })
  } catch (error) {
    await send({ type: 'result', id, error: toWireError(error) })
  }
}

await main()
