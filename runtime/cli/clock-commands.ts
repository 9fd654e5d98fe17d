// The clock's control-socket command (`clock.status`, shown by `gateway status`): whether the
// system clock is synchronised, the last step the gateway mended, whether a board set the
// time, whether it started behind the times already written, how many orders carry times
// of a clock never known right, and whether webhook deliveries wait for the clock
// (lib/kernel/clock-watch.ts).
import type { ControlServer } from '../control/control.ts'
import { unwatchedClockState, type ClockState } from '../../lib/kernel/clock-watch.ts'
import type { Services } from '../wiring/services.ts'

export function registerClockCommands(control: ControlServer, services: Pick<Services, 'clockWatch'>): void {
  control.register('clock.status', () => services.clockWatch?.state() ?? unwatchedClockState)
}

/** One line for `gateway status`. */
export function describeClock(state: ClockState): string {
  const sync = state.synchronized === null
    ? 'synchronisation unknown (neither timedatectl nor chronyc answered)'
    : state.synchronized ? `synchronised (${state.source})` : `NOT synchronised (${state.source})`
  const parts = [`clock: ${sync}`]
  if (state.setFromBoardAt !== null) parts.push(`set from a board at ${new Date(state.setFromBoardAt).toISOString()}`)
  if (state.lastJump) parts.push(`last step ${signedDuration(state.lastJump.shiftMs)} (${state.lastJump.cause}) mended at ${new Date(state.lastJump.at).toISOString()}`)
  if (state.behind) parts.push(`started ${signedDuration(state.behind.behindMs).slice(1)} behind the times already written: runs from ${new Date(state.behind.highWater).toISOString()} until the time is known`)
  if (state.ordersOnUnsureClock > 0) parts.push(`${state.ordersOnUnsureClock} active order(s) started on a clock never known right: their waiting times may be off`)
  if (state.holdingDeliveries) parts.push('webhook deliveries wait for the time')
  return parts.join('; ')
}

/** "+3h 0m 5s", "-2h 0m 0s", "+12s". */
export function signedDuration(ms: number): string {
  const sign = ms < 0 ? '-' : '+'
  let seconds = Math.round(Math.abs(ms) / 1000)
  const hours = Math.floor(seconds / 3600)
  seconds -= hours * 3600
  const minutes = Math.floor(seconds / 60)
  seconds -= minutes * 60
  return hours ? `${sign}${hours}h ${minutes}m ${seconds}s` : minutes ? `${sign}${minutes}m ${seconds}s` : `${sign}${seconds}s`
}
