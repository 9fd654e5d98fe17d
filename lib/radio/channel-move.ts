// Whether the network may be moved to another channel now. Moving a network that has devices
// relies on every device hearing the change broadcast; trackers asleep may not, and must then
// be paired again. So a move is refused once devices are paired (or when the radio is down and
// cannot tell) unless the person asks to force it: the same rule for `gateway radio channel`
// and for the zigbeePreset setting of POST /api/v2/gateway/settings.
import type { Radio, RadioInfo } from './radio.ts'

/** Paired devices, or null when the radio cannot tell (down); 0 for the simulated restaurant. */
export function pairedDevices(kind: Radio['kind'], info: RadioInfo): number | null {
  if (kind === 'simulated') return 0
  return info.up ? (info.devices ?? 0) : null
}

/** Why a move away from the current channel is refused without force, or undefined when it is not. */
export function channelMoveRefusal(kind: Radio['kind'], info: RadioInfo): string | undefined {
  const devices = pairedDevices(kind, info)
  if (devices === null) return 'the radio is down, so it cannot tell whether devices are paired'
  if (devices > 0) {
    return `${devices} device${devices === 1 ? ' is' : 's are'} paired on channel ${info.channel}: trackers asleep may miss the move and need pairing again`
  }
  return undefined
}
