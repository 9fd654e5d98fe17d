// Loaded with `--import` into the radio process by tests (ZigbeeProcessRadio's execArgv
// option): herdsman's adapter factory gets the in-process fake coordinator, and the test
// drives it over the unix socket named by ZIGBEE_FAKE_CONTROL (zigbee-fake-remote.ts), one
// JSON message a line. Product code knows nothing of this module.
import net from 'node:net'
import { Adapter } from 'zigbee-herdsman/dist/adapter/index.js'
import { trackerCluster } from '../../lib/radio/zigbee-profile.ts'
import { type FakeAdapter, type FakeDevice, installFakeAdapter } from './zigbee-fake-adapter.ts'

export interface ChildConfig {
  /** This process's start fails as if the serial port were missing. */
  failStart: boolean
  startResult: 'reset' | 'resumed'
  /** Devices the coordinator already knows (joined under an earlier radio process). */
  devices: FakeDevice[]
}

export type RemoteCommand =
  | { type: 'config'; config: ChildConfig }
  | { type: 'join'; device: FakeDevice }
  | { type: 'unplug' }
  | { type: 'set'; field: 'coordinatorEndpoints' | 'hangCoordinator' | 'failSends' | 'hangSends' | 'hangStop'; value: unknown }
  | { type: 'command'; device: FakeDevice; cluster: string; command: string; payload: Record<string, unknown> }

export type ChildReport =
  /** webAssembly: whether the process has it (not under --lite-mode: lib/radio/zigbee-process-flags.ts). */
  | { type: 'hello'; pid: number; webAssembly: boolean }
  | { type: 'created'; channel: number; serialPort: Record<string, unknown> }
  | { type: 'sent'; frame: FakeAdapter['sent'][number] }
  | { type: 'permitJoin'; seconds: number }
  | { type: 'frame'; frame: ReportedFrame }
  | { type: 'channelBroadcast'; channel: number }
  /** A 'set' command took effect. */
  | { type: 'applied' }

/** A ZCL frame the radio sent, as much of it as the tests read. */
export interface ReportedFrame {
  clusterId: number
  command: string
  manufacturerCode: number | undefined
}

const custom = { trkTracker: trackerCluster(0xfff1) } as never
const socket = net.createConnection(process.env.ZIGBEE_FAKE_CONTROL!)
socket.unref()
const report = (message: ChildReport) => void socket.write(`${JSON.stringify(message)}\n`)
report({ type: 'hello', pid: process.pid, webAssembly: typeof WebAssembly !== 'undefined' })

const fake = installFakeAdapter()
let adapter: FakeAdapter | undefined
let config: ChildConfig | undefined
let configured: () => void
const ready = new Promise<void>((resolve) => (configured = resolve))

const fakeCreate = Adapter.create
Adapter.create = async (...args) => {
  await ready
  if (config!.failStart) fake.failNextStarts(1)
  return fakeCreate(...args)
}
fake.onCreate = (created) => {
  adapter = created
  created.startResult = config!.startResult
  for (const device of config!.devices) created.devices.set(device.nwk, device)
  const sent = created.sent
  sent.push = (...frames) => {
    for (const frame of frames) report({ type: 'sent', frame })
    return Array.prototype.push.apply(sent, frames)
  }
  const joins = created.permitJoins
  joins.push = (...seconds) => {
    for (const value of seconds) report({ type: 'permitJoin', seconds: value })
    return Array.prototype.push.apply(joins, seconds)
  }
  const frames = created.frames
  frames.push = (...sentFrames) => {
    for (const frame of sentFrames) {
      report({ type: 'frame', frame: { clusterId: frame.cluster.ID, command: frame.command.name, manufacturerCode: frame.header.manufacturerCode } })
    }
    return Array.prototype.push.apply(frames, sentFrames)
  }
  const broadcasts = created.channelBroadcasts
  broadcasts.push = (...channels) => {
    for (const channel of channels) report({ type: 'channelBroadcast', channel })
    return Array.prototype.push.apply(broadcasts, channels)
  }
  report({ type: 'created', channel: created.channel, serialPort: { ...(created as unknown as { serialPortOptions: object }).serialPortOptions } })
}

let buffer = ''
socket.on('data', (chunk) => {
  buffer += chunk.toString()
  let end: number
  while ((end = buffer.indexOf('\n')) >= 0) {
    const line = buffer.slice(0, end)
    buffer = buffer.slice(end + 1)
    obey(JSON.parse(line) as RemoteCommand)
  }
})

function obey(command: RemoteCommand): void {
  switch (command.type) {
    case 'config':
      config = command.config
      return configured()
    case 'join':
      return adapter!.join(command.device)
    case 'unplug':
      return adapter!.unplug()
    case 'set':
      ;(adapter as unknown as Record<string, unknown>)[command.field] = command.value
      return report({ type: 'applied' })
    case 'command':
      return adapter!.sendCommand(command.device, command.cluster, command.command, command.payload, custom)
  }
}
