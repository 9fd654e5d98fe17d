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

/** herdsman's default serial speed for every adapter but deCONZ and ZBT-2-like sticks. */
const defaultBaudRate = 115200
/** deCONZ's driver opens the port at this speed when none is configured (ConBee II, RaspBee). */
const deconzDefaultBaudRate = 38400

/**
 * How each adapter says that nothing answered on the port (a silent stick, a wrong speed, a
 * stick in its bootloader). deCONZ's words name the firmware without meaning its version.
 */
const noAnswer = [
  /did not start within|HOST_FATAL_ERROR|Failed to connect to the adapter|timed? ?out|no answer|cannot set/i,
  // deconz
  /failed to start adapter connection to firmware/i,
  // zboss: "Failure send 20:{...} (==> Error: ... after 10000ms)"
  /^Failure send .* after \d+ ?ms/i,
  // zigate: "failed to connect to zigate adapter sendCommand error: ... after 5000ms"
  /failed to connect to zigate adapter/i,
]

/** Coordinators reached over the network (tcp://host:port, mdns://...): no serial speed applies. */
export function isNetworkPath(path: string): boolean {
  return /^(tcp|mdns|socket):\/\//i.test(path)
}

export function diagnoseStart(reason: string, setting: ProbeSetting, candidates: Candidate[]): string {
  const { path } = setting
  // The gateway's own refusal (lib/radio/zigbee-takeover.ts) already says what to do.
  if (reason.startsWith('coordinator_backup.json ')) return `cannot start on this network: ${reason}`
  if (isNetworkPath(path)) return diagnoseNetworkStart(reason, setting)
  if (/no such port|ENOENT|No such file or directory/i.test(reason)) {
    return `no such port: ${path} does not exist (is the stick plugged in? see the list above)`
  }
  if (/Cannot lock port|Resource temporarily unavailable|EBUSY/i.test(reason)) {
    return `port busy: another program holds ${path} (a running gateway, zigbee2mqtt, ModemManager?)`
  }
  if (/EACCES|Permission denied/i.test(reason)) {
    return `permission denied on ${path}: the gateway's user must be in the dialout group`
  }
  const silent = noAnswer.some((pattern) => pattern.test(reason))
  if (!silent && /protocol version|not supported by Host|old-style version|firmware|version .* not supported/i.test(reason)) {
    return `firmware too old for ${setting.adapter ?? 'this adapter'}: ${reason}`
  }
  const recognised = candidates.find((candidate) => candidate.path === path && candidate.adapter !== undefined)
  if (recognised && setting.adapter !== undefined && recognised.adapter !== setting.adapter) {
    return `wrong adapter type: ${path} looks like a ${recognised.adapter} stick (${recognised.name}), configured ${setting.adapter}`
  }
  if (silent) {
    if (setting.adapter === 'deconz') {
      const baud = setting.baudRate ?? recognised?.baudRate ?? deconzDefaultBaudRate
      const other = baud === deconzDefaultBaudRate ? `${defaultBaudRate} (ConBee III)` : `${deconzDefaultBaudRate} (ConBee II, RaspBee)`
      return `no answer at ${baud} baud from ${path}: deCONZ sticks speak ${deconzDefaultBaudRate} baud (ConBee II, RaspBee, the default) or ${defaultBaudRate} (ConBee III); try radio.baudRate ${other}, check radio.adapter, or replug the stick`
    }
    const baud = setting.baudRate ?? recognised?.baudRate ?? defaultBaudRate
    return `no answer at ${baud} baud from ${path}: wrong baud rate (radio.baudRate), wrong adapter type (radio.adapter), or a stick in its bootloader (replug it)`
  }
  return `start failed: ${reason}`
}

/** A coordinator on the network: its address, power and firmware matter, not a baud rate. */
function diagnoseNetworkStart(reason: string, setting: ProbeSetting): string {
  const { path } = setting
  if (/ECONNREFUSED/i.test(reason))
    return `connection refused by ${path}: nothing listens on that port (is the coordinator's serial server on, and the port right?)`
  if (/ENOTFOUND|EAI_AGAIN|getaddrinfo/i.test(reason)) return `unknown host in ${path}: check the name or use the coordinator's IP address`
  if (/EHOSTUNREACH|ENETUNREACH/i.test(reason)) return `no route to ${path}: is the coordinator on this network and switched on?`
  if (noAnswer.some((pattern) => pattern.test(reason)) || /ETIMEDOUT/i.test(reason)) {
    return `no answer from ${path}: is the coordinator switched on, its address and port right, and radio.adapter (${setting.adapter ?? 'not set'}) its firmware's type? Another program connected to it (zigbee2mqtt, Home Assistant) also keeps it from answering`
  }
  if (/protocol version|not supported by Host|old-style version|version .* not supported/i.test(reason)) {
    return `firmware too old for ${setting.adapter ?? 'this adapter'}: ${reason}`
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
