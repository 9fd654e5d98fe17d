import t from 'tap'
import { ManualClock } from '../../helpers/manual-clock.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { PairingScheduler } from '../../../runtime/workers/pairing.ts'
import { FakeRadio } from '../../helpers/fake-radio.ts'

function setup() {
  const clock = new ManualClock()
  const radio = new FakeRadio(clock)
  const pairing = new PairingScheduler({ radio, clock, log: memoryLogger('fatal').log })
  return { clock, radio, pairing, t0: clock.now() }
}

t.test('a window within the stack limit opens joining once and closes by itself', async (t) => {
  const { clock, radio, pairing, t0 } = setup()
  const state = await pairing.begin(60)
  t.same(state, { open: true, until: t0 + 60_000, radioUp: true })
  t.same(radio.permitJoins, [{ seconds: 60, at: t0 }])
  await clock.advance(59_000)
  t.equal(pairing.isOpen(), true)
  await clock.advance(1000)
  t.equal(pairing.isOpen(), false)
  t.equal(radio.permitJoins.length, 1, 'no re-arm needed')
})

t.test('a window longer than 254 s is re-armed before each chunk runs out', async (t) => {
  const { clock, radio, pairing, t0 } = setup()
  await pairing.begin(600)
  await clock.advance(600_000)
  t.same(
    radio.permitJoins,
    [
      { seconds: 254, at: t0 },
      { seconds: 254, at: t0 + 249_000 },
      { seconds: 102, at: t0 + 498_000 },
    ],
    'each chunk re-armed 5 s before the previous one lapses; the last covers the rest exactly',
  )
  t.equal(pairing.isOpen(), false)
  await clock.advance(600_000)
  t.equal(radio.permitJoins.length, 3, 'nothing after the window')
})

t.test('end closes joining at once and stops re-arming; 0 means end', async (t) => {
  const { clock, radio, pairing, t0 } = setup()
  await pairing.begin(600)
  await clock.advance(10_000)
  const state = await pairing.end()
  t.same(state, { open: false, until: null, radioUp: true })
  t.same(radio.permitJoins.at(-1), { seconds: 0, at: t0 + 10_000 })
  await clock.advance(600_000)
  t.equal(radio.permitJoins.length, 2)
  await pairing.begin(30)
  t.same((await pairing.begin(0)).open, false)
  t.same(radio.permitJoins.at(-1)!.seconds, 0)
  await t.rejects(pairing.begin(-1), RangeError)
  await t.rejects(pairing.begin(3601), RangeError)
})

t.test('a radio that returns while a window is open gets the rest of it', async (t) => {
  const { clock, radio, pairing, t0 } = setup()
  radio.up = false
  const state = await pairing.begin(120)
  t.same(state, { open: true, until: t0 + 120_000, radioUp: false }, 'the window is kept while the radio is down')
  t.equal(radio.permitJoins.length, 0)
  await clock.advance(20_000)
  radio.setUp(true)
  await clock.advance(0)
  t.same(radio.permitJoins, [{ seconds: 100, at: t0 + 20_000 }])
})

t.test('stop closes an open window', async (t) => {
  const { radio, pairing } = setup()
  await pairing.begin(100)
  await pairing.stop()
  t.equal(radio.permitJoins.at(-1)!.seconds, 0)
  t.equal(pairing.isOpen(), false)
})
