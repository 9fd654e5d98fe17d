// The messages between the gateway and its radio process (zigbee-process.ts forks
// zigbee-child.ts). Plain JSON over Node's IPC channel; errors travel as name and message.
import type { RadioEvents, RadioInfo } from './radio.ts'
import type { ZigbeeRadioSettings } from './zigbee.ts'

/** What the radio process is started with (its argv[2], JSON). */
export interface ZigbeeChildOptions extends ZigbeeRadioSettings {
  channel: number
  /** pino level of the gateway's logger: the child logs no more than the parent keeps. */
  logLevel: string
}

/** The settings the radio process gets (the gateway's own options, clock and logger stay behind). */
export const zigbeeRadioSettingKeys = [
  'adapter',
  'serialPort',
  'baudRate',
  'rtscts',
  'transmitPower',
  'dataDir',
  'manufacturerCode',
  'commandTimeoutMs',
  'checkIntervalMs',
  'checkTimeoutMs',
  'pingIntervalMs',
] as const satisfies readonly (keyof ZigbeeRadioSettings)[]

/** The radio methods the gateway may call in the radio process. */
export const radioCalls = [
  'page',
  'cancel',
  'permitJoin',
  'info',
  'refreshRepeaters',
  'announceChannel',
  'backupCoordinator',
  'devices',
  'interview',
  'remove',
  'networkMap',
] as const
export type RadioCall = (typeof radioCalls)[number]

export type ParentMessage =
  | { type: 'call'; id: number; method: RadioCall; args: unknown[] }
  /** Stop herdsman cleanly (database saved, port closed), then exit. */
  | { type: 'stop' }

export interface WireError {
  name: string
  message: string
}

export type ChildMessage =
  | { type: 'up'; info: RadioInfo; rss: number }
  | { type: 'event'; name: Exclude<keyof RadioEvents, 'status'>; payload: unknown }
  | { type: 'result'; id: number; value?: unknown; error?: WireError }
  /** The radio cannot go on (failed start, adapter disconnected, failed check): exit follows. */
  | { type: 'fatal'; reason: string }
  | { type: 'memory'; rss: number }
  /** One pino line, as the child's logger wrote it. */
  | { type: 'log'; line: string }

export function toWireError(error: unknown): WireError {
  const cause = error instanceof Error ? error : new Error(String(error))
  return { name: cause.name, message: cause.message }
}

export function fromWireError(wire: WireError): Error {
  const error = wire.name === 'RangeError' ? new RangeError(wire.message) : new Error(wire.message)
  if (wire.name !== 'RangeError' && wire.name !== 'Error') error.name = wire.name
  return error
}
