// Paging leases and a moved gateway clock (a clock step mended, lib/kernel/clock-watch.ts):
// a single page keeps its 60 s on the monotonic clock, whatever the wall clock did.
import t from 'tap'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { SteppingClock } from '../../helpers/stepping-clock.ts'
import { PagingScheduler } from '../../../runtime/workers/scheduler.ts'

for (const shift of [3 * 3_600_000, -2 * 3_600_000]) {
  t.test(`a single page keeps its lease when the gateway clock moves ${shift / 3_600_000} h`, async (t) => {
    const clock = new SteppingClock()
    const leases: number[] = []
    let failures = 5
    const radio = {
      page: async (_address: string, lease: number) => {
        leases.push(lease)
        if (failures-- > 0) throw new Error('no ack')
      },
      cancel: async () => {},
    }
    const lapsed: number[] = []
    const scheduler = new PagingScheduler({ radio, clock, log: memoryLogger().log, onLapse: () => lapsed.push(clock.monotonic()) })
    const start = clock.monotonic()
    scheduler.page('T1', { tracking: false })
    await clock.advance(5_000)
    clock.shift(shift)
    await clock.advance(55_000)
    t.same(leases, [60, 50, 40], 'retries ask for what is left of the lease, not hours more or none')
    t.same(lapsed, [start + 60_000], 'the lapse comes after 60 s')
  })
}
