// The nemesis's judgements (tests/nemesis/invariants.ts) on observations written out by
// hand: what issue 40's power cut showed (an order dated tomorrow with elapsedTime 0, a
// history row ending a day before it started, a negative average) is caught, and a box whose
// answers agree with the truth passes.
import t from 'tap'
import { checkActiveTimes, checkHistoryTimes, checkStatistics, type ModelCleared, type ModelOrder, type Observation, type Stamp } from './invariants.ts'

const now = Date.parse('2026-12-02T12:00:00Z')
const day = 86_400_000

const stamp = (real: number, overrides: Partial<Stamp> = {}): Stamp => ({ real, slackMs: 10, run: 1, trusted: true, stepsBefore: 0, ...overrides })

function observation(overrides: Partial<Observation> = {}): Observation {
  return {
    real: now,
    spanMs: 20,
    gatewayNow: now,
    gatewayNowAfter: now,
    gatewayNowReal: now,
    offsetMs: 0,
    trustedNow: true,
    run: 2,
    stepsInRun: new Map([
      [1, 0],
      [2, 1],
    ]),
    active: [],
    history: [],
    statistics: { ordersToday: 0, averageSeconds: 0, exceededToday: 0, percentGoal: 0, targetTime: 300 },
    utcOffsetMs: 0,
    ...overrides,
  }
}

t.test('active orders: the power cut of issue 40', async (t) => {
  // Created two minutes ago on a right clock by run 1; run 2 booted a day behind and was stepped.
  const order: ModelOrder = { uuid: 'u1', name: 7, locationName: '', tracker: false, created: stamp(now - 120_000) }
  const orders = new Map([[7, order]])
  const right = observation({ active: [{ uuid: 'u1', name: 7, locationName: '', created: now - 120_000, elapsedTime: 120 }] })
  t.same(checkActiveTimes(orders, right), [], 'right times pass')

  const moved = observation({ active: [{ uuid: 'u1', name: 7, locationName: '', created: now - 120_000 + day, elapsedTime: 0 }] })
  const problems = checkActiveTimes(orders, moved)
  t.match(problems.join('\n'), /created .* is after the gateway's now/, 'dated tomorrow')
  t.match(problems.join('\n'), /elapsedTime 0 s, but it is 120\.0 s old/, 'waiting time lost')

  t.match(
    checkActiveTimes(orders, observation({ active: [{ uuid: 'u1', name: 7, locationName: '', created: now - 120_000, elapsedTime: -3 }] })).join('\n'),
    /negative/,
  )
})

t.test("active orders: a time the gateway cannot vouch for is judged only on what it can't excuse", async (t) => {
  // Taken by run 1 on a clock a day behind, never mended (killed before the time came).
  const order: ModelOrder = { uuid: 'u2', name: 8, locationName: '', tracker: false, created: stamp(now - 60_000, { trusted: false }) }
  const orders = new Map([[8, order]])
  const aDayOld = observation({ active: [{ uuid: 'u2', name: 8, locationName: '', created: now - 60_000 - day, elapsedTime: 86_460 }] })
  t.same(checkActiveTimes(orders, aDayOld), [], 'a day old is what the box can know')
  const notRight = observation({
    trustedNow: false,
    gatewayNow: now - day,
    gatewayNowAfter: now - day,
    active: [{ uuid: 'u2', name: 8, locationName: '', created: now, elapsedTime: 0 }],
  })
  t.same(checkActiveTimes(orders, notRight), [], "an earlier run's time ahead of a clock that is not right is not judged")
  // This run took it: however its clock was stepped since, the age is the true one.
  const thisRun: ModelOrder = { ...order, created: stamp(now - 60_000, { run: 2, trusted: false }) }
  t.match(checkActiveTimes(new Map([[8, thisRun]]), aDayOld).join('\n'), /elapsedTime 86460 s, but it is 60\.0 s old \(this run took it\)/)
})

t.test('history rows end after they start, and last as long as they truly did', async (t) => {
  const model: ModelCleared = {
    uuid: 'h1',
    name: 3,
    locationName: '',
    created: stamp(now - 300_000),
    cleared: stamp(now - 180_000, { run: 2, stepsBefore: 1 }),
  }
  const cleared = new Map([['h1', model]])
  const right = observation({ history: [{ uuid: 'h1', name: 3, started: now - 300_000, located: null, cleared: now - 180_000 }] })
  t.same(checkHistoryTimes(cleared, right), [])
  const backwards = observation({ history: [{ uuid: 'h1', name: 3, started: now - 300_000 + day, located: null, cleared: now - 180_000 }] })
  const problems = checkHistoryTimes(cleared, backwards).join('\n')
  t.match(problems, /cleared .* before it started/, 'orderCleared before orderStarted')
  t.match(problems, /lasted -86280\.0 s, truly 120\.0 s/)
  t.match(
    checkHistoryTimes(new Map(), observation({ history: [{ uuid: 'x', name: 1, started: now - 10_000, located: now - 20_000, cleared: now }] })).join('\n'),
    /located .* outside/,
  )
})

t.test('statistics equal what the history says', async (t) => {
  const history = [
    { uuid: 'a', name: 1, started: now - 100_000, located: null, cleared: now - 40_000 },
    { uuid: 'b', name: 2, started: now - 500_000, located: null, cleared: now - 60_000 },
    { uuid: 'c', name: 3, started: now - 2 * day, located: null, cleared: now - 1.5 * day },
  ]
  const stats = (s: Partial<Observation['statistics']>) =>
    observation({ history, statistics: { ordersToday: 2, averageSeconds: 250, exceededToday: 1, percentGoal: 50, targetTime: 300, ...s } })
  t.same(checkStatistics(stats({})), [], 'two today, (60 + 440) / 2 = 250 s, one over 300 s')
  t.match(checkStatistics(stats({ averageSeconds: -86_318 })).join('\n'), /averageSeconds -86318 is negative/)
  t.match(checkStatistics(stats({ ordersToday: 3 })).join('\n'), /ordersToday 3, the history has 2/)
  t.match(checkStatistics(stats({ exceededToday: 0 })).join('\n'), /exceededToday 0, the history has 1/)
  t.same(checkStatistics({ ...stats({ ordersToday: 9 }), gatewayNowAfter: now + day }), [], 'not judged when the day changed during the reads')
})
