import t from 'tap'
import { describeClock, registerClockCommands, signedDuration } from '../../../runtime/cli/clock-commands.ts'
import { unwatchedClockState } from '../../../lib/kernel/clock-watch.ts'

t.test('signedDuration', async (t) => {
  t.equal(signedDuration(3 * 3_600_000 + 5_000), '+3h 0m 5s')
  t.equal(signedDuration(-2 * 3_600_000), '-2h 0m 0s')
  t.equal(signedDuration(-125_000), '-2m 5s')
  t.equal(signedDuration(12_400), '+12s')
  t.equal(signedDuration(0), '+0s')
})

t.test('one line for gateway status', async (t) => {
  t.equal(describeClock(unwatchedClockState), 'clock: synchronisation unknown (neither timedatectl nor chronyc answered)')
  t.equal(describeClock({ ...unwatchedClockState, synchronized: true, source: 'chronyc' }), 'clock: synchronised (chronyc)')
  t.equal(
    describeClock({ ...unwatchedClockState, synchronized: false, source: 'timedatectl', lastJump: { at: Date.UTC(2026, 10, 25, 9), shiftMs: 10_800_000, cause: 'board' }, setFromBoardAt: Date.UTC(2026, 10, 25, 9), holdingDeliveries: false }),
    'clock: NOT synchronised (timedatectl); set from a board at 2026-11-25T09:00:00.000Z; last step +3h 0m 0s (board) mended at 2026-11-25T09:00:00.000Z',
  )
  t.equal(describeClock({ ...unwatchedClockState, synchronized: false, source: 'timedatectl', holdingDeliveries: true }), 'clock: NOT synchronised (timedatectl); webhook deliveries wait for the time')
  t.equal(
    describeClock({ ...unwatchedClockState, synchronized: false, source: 'timedatectl', behind: { highWater: Date.UTC(2026, 10, 25, 9), behindMs: 86_400_000 + 5000 }, ordersOnUnsureClock: 2 }),
    'clock: NOT synchronised (timedatectl); started 24h 0m 5s behind the times already written: runs from 2026-11-25T09:00:00.000Z until the time is known; 2 active order(s) started on a clock never known right: their waiting times may be off',
  )
})

t.test('clock.status answers the watch\'s state, or the unwatched one', async (t) => {
  const handlers = new Map<string, () => unknown>()
  const control = { register: (command: string, handler: () => unknown) => void handlers.set(command, handler) }
  registerClockCommands(control as never, { clockWatch: undefined })
  t.same(handlers.get('clock.status')!(), unwatchedClockState)
  const state = { ...unwatchedClockState, synchronized: true }
  registerClockCommands(control as never, { clockWatch: { state: () => state } as never })
  t.equal(handlers.get('clock.status')!(), state)
})
