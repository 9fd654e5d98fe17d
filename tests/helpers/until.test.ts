// The tests' waiting helper: a wait that keeps making progress is not cut short by its stall
// limit, a stalled one fails naming how long nothing moved, and every limit is named in the
// error. The progress here moves at each check, so no verdict depends on how fast the
// machine is, only on whether anything moved.
import t from 'tap'
import { generousMs, until, untilProgress } from './until.ts'

t.test('until: a generous default, named in the error', async (t) => {
  t.equal(generousMs, 60_000)
  await t.rejects(
    until(() => false, 'nothing', 50),
    { message: 'timed out waiting for nothing (0.05 s)' },
  )
  let checks = 0
  await until(() => ++checks === 3, 'the third check')
  t.equal(checks, 3)
})

t.test('untilProgress: progress at every check outlasts the stall limit many times over', async (t) => {
  let checks = 0
  const started = Date.now()
  await untilProgress(
    () => ++checks >= 300,
    () => checks,
    'three hundred checks',
    { stallMs: 20 },
  )
  t.equal(checks, 300)
  t.ok(Date.now() - started > 20, 'longer than the stall limit in all')
})

t.test('untilProgress: nothing moving fails after the stall limit, with where it stood', async (t) => {
  await t.rejects(
    untilProgress(
      () => false,
      () => ({ stored: 7 }),
      'every order',
      { stallMs: 50 },
    ),
    {
      message: 'timed out waiting for every order: no progress for 0.05 s (at {"stored":7})',
    },
  )
})

t.test('untilProgress: the overall limit holds even while progress goes on', async (t) => {
  let checks = 0
  await t.rejects(
    untilProgress(
      () => (checks++, false),
      () => checks,
      'the end',
      { stallMs: 60_000, limitMs: 50 },
    ),
    {
      message: /^timed out waiting for the end \(0\.05 s in all, last at \d+\)$/,
    },
  )
})
