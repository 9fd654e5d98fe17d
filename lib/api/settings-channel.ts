// POST /api/v2/gateway/settings and the channel: a zigbeePreset that names another channel
// moves the Zigbee network at once, so it keeps the rule of `gateway radio channel`
// (lib/radio/channel-move.ts): refused (-45) once devices are paired, or while the radio is
// down and cannot tell, unless the request says ?force=true.
import * as z from '../kernel/schema/index.ts'
import { DomainError } from '../kernel/errors.ts'
import { channelOfPreset, type Settings } from '../settings/service.ts'
import { QueryInput, withDefault } from './input-schema.ts'

export const settingsQuery = new QueryInput({
  force: withDefault(
    z.enum(['true', 'false']).transform((value) => value === 'true'),
    false,
    {
      invalid: 'FORCE_INVALID',
      description: 'true: apply a zigbeePreset that moves the network even with devices paired (they may need pairing again)',
    },
  ),
})

/** Throws CHANNEL_MOVE_REFUSED when `changes` would move a network that must not move now. */
export async function refuseChannelMove(
  current: Settings,
  changes: Partial<Settings>,
  radio: { channelMoveRefusal(): Promise<string | undefined> },
  force: boolean,
): Promise<void> {
  if (force || changes.zigbeePreset === undefined) return
  if (channelOfPreset(changes.zigbeePreset) === channelOfPreset(current.zigbeePreset)) return
  const refusal = await radio.channelMoveRefusal()
  if (refusal) throw new DomainError('CHANNEL_MOVE_REFUSED', `${refusal}; add ?force=true to move anyway`)
}
