// A pairing window and a moved gateway clock: the window lasts what was asked, either way.
import t from 'tap'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { SteppingClock } from '../../helpers/stepping-clock.ts'
import { PairingScheduler } from '../../../runtime/workers/pairing.ts'
import { FakeRadio } from '../../helpers/fake-radio.ts'

for (const shift of [3 * 3_600_000, -2 * 3_600_000]) {
  t.test(`a 60 s window when the gateway clock moves ${shift / 3_600_000} h`, async (t) => {
    const clock = new SteppingClock()
    const pairing = new PairingScheduler({ radio: new FakeRadio(clock), clock, log: memoryLogger('fatal').log })
    await pairing.begin(60)
    await clock.advance(20_000)
    clock.shift(shift)
    t.match(await pairing.state(), { open: true, until: clock.now() + 40_000 })
    await clock.advance(39_999)
    t.equal(pairing.isOpen(), true)
    await clock.advance(1)
    t.equal(pairing.isOpen(), false)
  })
}
