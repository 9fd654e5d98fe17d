// The simulated tracker's lease runs on its own timer (the monotonic clock), as a real
// tracker's does: moving the gateway's clock neither ends it nor makes it last hours.
import t from 'tap'
import { SimulatedRadio } from '../../../lib/radio/simulated.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { SteppingClock } from '../../helpers/stepping-clock.ts'

for (const shift of [3 * 3_600_000, -2 * 3_600_000]) {
  t.test(`a lease of 30 s when the gateway clock moves ${shift / 3_600_000} h`, async (t) => {
    const clock = new SteppingClock()
    const radio = new SimulatedRadio({ clock, log: memoryLogger().log })
    await radio.start()
    t.teardown(() => radio.stop())
    const tracker = radio.startTracker(1)
    await radio.page(tracker.address, 30)
    await clock.advance(10_000)
    clock.shift(shift)
    t.ok(radio.isBuzzing(1))
    t.equal(radio.status().trackers[0].buzzingUntil, clock.now() + 20_000, 'ends in 20 s, told on the moved clock')
    await clock.advance(20_000)
    t.notOk(radio.isBuzzing(1))
    t.equal(radio.status().trackers[0].buzzingUntil, null)
  })
}
