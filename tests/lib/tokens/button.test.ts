import t from 'tap'
import { ManualClock } from '../../helpers/manual-clock.ts'
import { ButtonWindow, buttonWindowMs } from '../../../lib/tokens/button.ts'

t.test('a press opens a 120 s window', async (t) => {
  const clock = new ManualClock()
  const button = new ButtonWindow(clock)
  t.equal(buttonWindowMs, 120_000)
  t.notOk(button.isOpen())
  t.match(button.press(), { open: true, closesAt: clock.now() + 120_000, lastPressedAt: clock.now() })
  await clock.advance(119_999)
  t.ok(button.isOpen())
  await clock.advance(1)
  t.notOk(button.isOpen())
  t.match(button.state(), { open: false, closesAt: null })
})

t.test('take closes the window once; restore gives it back only while it lasts', async (t) => {
  const clock = new ManualClock()
  const button = new ButtonWindow(clock)
  t.equal(button.take(), null)
  button.press()
  const closesAt = button.take()
  t.equal(closesAt, clock.now() + 120_000)
  t.equal(button.take(), null)
  button.restore(closesAt!)
  t.ok(button.isOpen())
  button.take()
  await clock.advance(120_000)
  button.restore(closesAt!)
  t.notOk(button.isOpen(), 'an expired window is not restored')
})
