// The button window and a moved gateway clock: 120 s on the monotonic clock either way.
import t from 'tap'
import { ButtonWindow } from '../../../lib/tokens/button.ts'
import { SteppingClock } from '../../helpers/stepping-clock.ts'

for (const shift of [3 * 3_600_000, -2 * 3_600_000]) {
  t.test(`the window stays 120 s when the gateway clock moves ${shift / 3_600_000} h`, async (t) => {
    const clock = new SteppingClock()
    const button = new ButtonWindow(clock)
    button.press()
    await clock.advance(30_000)
    clock.shift(shift)
    t.ok(button.isOpen(), 'still open')
    t.equal(button.state().closesAt, clock.now() + 90_000, 'closes in 90 s, told on the moved clock')
    await clock.advance(89_999)
    t.ok(button.isOpen())
    await clock.advance(1)
    t.notOk(button.isOpen(), 'closed after 120 s')
    t.equal(button.state().closesAt, null)
  })
}

t.test('a window taken and given back keeps its end', async (t) => {
  const clock = new SteppingClock()
  const button = new ButtonWindow(clock)
  button.press()
  await clock.advance(100_000)
  const closesAt = button.take()!
  t.equal(closesAt, clock.now() + 20_000)
  t.notOk(button.isOpen())
  button.restore(closesAt)
  t.ok(button.isOpen())
  await clock.advance(20_000)
  t.notOk(button.isOpen())
  button.restore(closesAt)
  t.notOk(button.isOpen(), 'a window that has ended is not given back')
})
