// Moving the Zigbee network to another channel. herdsman moves it only at start, when the
// coordinator "resumed" on a channel other than the configured one: it broadcasts a
// Mgmt_NWK_Update_req (every device, sleepy ones included, switches) and waits 12 s. That
// misses two cases, both seen with real sticks: a deCONZ stick writes the configured
// channel itself while starting and reports "resumed" on it, so herdsman never broadcasts
// and the devices stay behind; and any stick restarted while devices sleep. So a change made
// while the radio is up is broadcast first, on the running network, and only then is the
// coordinator restarted on the new channel (which then finds nothing left to change).
import type { Controller } from './herdsman.ts'
import type { Logger } from '../kernel/log.ts'

/** herdsman 10.9.5's Controller.changeChannel: private in its types, the same code it runs at start. */
interface ChannelChanger {
  changeChannel(oldChannel: number, newChannel: number, nwkUpdateID: number): Promise<void>
}

/**
 * Tells the running network to move to `channel` (herdsman's broadcast, then its 12 s wait
 * for it to spread). Returns false, with a warning logged, when that could not be done: the
 * restart then relies on herdsman's own broadcast at start.
 */
export async function broadcastChannelChange(controller: Controller, channel: number, log: Logger): Promise<boolean> {
  try {
    const { channel: current, nwkUpdateID } = await controller.getNetworkParameters()
    if (current === channel) return true
    log.info({ from: current, to: channel }, 'zigbee channel change broadcast to the network')
    await (controller as unknown as ChannelChanger).changeChannel(current, channel, nwkUpdateID)
    return true
  } catch (error) {
    log.warn({ err: error, to: channel }, 'broadcasting the channel change failed; devices asleep may need pairing again')
    return false
  }
}
