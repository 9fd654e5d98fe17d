import t from 'tap'
import { ManualClock } from '../../helpers/manual-clock.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { RepeatedWarning } from '../../../lib/kernel/repeated-warning.ts'

function setup(options = {}) {
  const clock = new ManualClock()
  const memory = memoryLogger()
  const warning = new RepeatedWarning(memory.log, clock, 'send failed', { windowMs: 1_000, ...options })
  const lines = () => memory.lines().map(({ msg, kind, repeated, tracker }) => ({ msg, kind, repeated, tracker }))
  return { clock, warning, lines }
}

t.test('the first occurrence in full, then one line per window with the count; a quiet window ends the episode', async (t) => {
  const { clock, warning, lines } = setup()
  for (let i = 0; i < 500; i++) warning.warn('a', { tracker: `T${i}` })
  warning.warn('b', { tracker: 'X' })
  t.same(lines(), [
    { msg: 'send failed', kind: 'a', repeated: undefined, tracker: 'T0' },
    { msg: 'send failed', kind: 'b', repeated: undefined, tracker: 'X' },
  ])
  await clock.advance(1_000)
  t.same(lines().slice(2), [{ msg: 'send failed (repeated)', kind: 'a', repeated: 499, tracker: undefined }], 'b did not repeat: nothing more about it')
  warning.warn('a', { tracker: 'T1' })
  await clock.advance(1_000)
  t.same(lines().slice(3), [{ msg: 'send failed (repeated)', kind: 'a', repeated: 1, tracker: undefined }], 'a is still in its episode')
  await clock.advance(1_000)
  t.equal(lines().length, 4, 'a quiet window says nothing')
  warning.warn('a', { tracker: 'T2' })
  warning.warn('b', { tracker: 'Y' })
  t.same(
    lines()
      .slice(4)
      .map((line) => line.tracker),
    ['T2', 'Y'],
    'episodes over: the next occurrences are logged in full again',
  )
})

t.test('kinds beyond maxKinds are summed up under "other"; close says what was counted', async (t) => {
  const { clock, warning, lines } = setup({ maxKinds: 2 })
  for (let i = 0; i < 100; i++) warning.warn(`kind ${i}`, { tracker: `T${i}` })
  t.equal(lines().length, 2, 'two kinds in full, the rest counted')
  await clock.advance(1_000)
  t.same(lines().slice(2), [{ msg: 'send failed (repeated)', kind: 'other', repeated: 98, tracker: undefined }])
  warning.warn('kind 0', { tracker: 'T0' })
  warning.warn('kind 0', { tracker: 'T0' })
  warning.close()
  t.same(lines().slice(3), [
    { msg: 'send failed', kind: 'kind 0', repeated: undefined, tracker: 'T0' },
    { msg: 'send failed (repeated)', kind: 'kind 0', repeated: 1, tracker: undefined },
  ])
  await clock.advance(5_000)
  t.equal(lines().length, 5, 'no timer left after close')
})
