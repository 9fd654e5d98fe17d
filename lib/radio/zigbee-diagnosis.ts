// What `gateway radio probe` says about a failed start, in one line an installer can act
// on. herdsman's adapters and the serial library word the same problem differently; these
// are the messages of zigbee-herdsman 10.9.5 and @serialport/bindings-cpp, as seen on
// sticks and on a pseudo-terminal (tests/lib/radio/zigbee-serial.test.ts).

export interface ProbeSetting {
  path: string
  adapter?: string
  baudRate?: number
}

/** A stick herdsman's discovery lists, with the adapter type it recognises, if any. */
export interface Candidate {
  name: string
  path: string
  adapter?: string
  baudRate?: number
  rtscts?: boolean
}

/** herdsman's default serial speed for every adapter but ZBT-2-like sticks. */
const defaultBaudRate = 115200

export function diagnoseStart(reason: string, setting: ProbeSetting, candidates: Candidate[]): string {
  const { path } = setting
  if (/no such port|ENOENT|No such file or directory/i.test(reason)) {
    return `no such port: ${path} does not exist (is the stick plugged in? see the list above)`
  }
  if (/Cannot lock port|Resource temporarily unavailable|EBUSY/i.test(reason)) {
    return `port busy: another program holds ${path} (a running gateway, zigbee2mqtt, ModemManager?)`
  }
  if (/EACCES|Permission denied/i.test(reason)) {
    return `permission denied on ${path}: the gateway's user must be in the dialout group`
  }
  if (/protocol version|not supported by Host|old-style version|firmware|version .* not supported/i.test(reason)) {
    return `firmware too old for ${setting.adapter ?? 'this adapter'}: ${reason}`
  }
  const recognised = candidates.find((candidate) => candidate.path === path && candidate.adapter !== undefined)
  if (recognised && setting.adapter !== undefined && recognised.adapter !== setting.adapter) {
    return `wrong adapter type: ${path} looks like a ${recognised.adapter} stick (${recognised.name}), configured ${setting.adapter}`
  }
  if (/did not start within|HOST_FATAL_ERROR|Failed to connect to the adapter|timed? ?out|no answer|cannot set/i.test(reason)) {
    const baud = setting.baudRate ?? recognised?.baudRate ?? defaultBaudRate
    return `no answer at ${baud} baud from ${path}: wrong baud rate (radio.baudRate), wrong adapter type (radio.adapter), or a stick in its bootloader (replug it)`
  }
  return `start failed: ${reason}`
}

export function describeCandidates(candidates: Candidate[]): string {
  if (candidates.length === 0) return 'no serial ports or network coordinators found'
  return candidates
    .map((candidate) => {
      const options = [candidate.baudRate && `baudRate ${candidate.baudRate}`, candidate.rtscts !== undefined && `rtscts ${candidate.rtscts}`].filter(Boolean)
      const known = candidate.adapter ? `adapter ${candidate.adapter}${options.length ? `, ${options.join(', ')}` : ''}` : 'adapter type not recognised'
      return `  ${candidate.path}  ${candidate.name}  (${known})`
    })
    .join('\n')
}
