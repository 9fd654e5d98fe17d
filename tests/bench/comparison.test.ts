// How `npm run bench` orders and sums up its rounds: which server goes first alternates;
// saturated, the round with the median throughput ratio; at half rate, each side's median
// round by p99; every round kept, and the row that prints them.
import t from 'tap'
import { compared, halfRate, inTurn, row, saturated, type Load } from '../../bench/comparison.ts'

const load = (p99Ms: number, rps = 1000): Load => ({ rps, p50Ms: p99Ms / 4, p99Ms, cpuMicrosPerRequest: 15, requests: rps * 10, non2xx: 0, errors: 0 })

t.test('saturated: the round with the median ratio, whole, and every round kept', async (t) => {
  const rounds = [
    { gateway: load(1, 900), bare: load(1, 1000) },
    { gateway: load(1, 700), bare: load(1, 1000) },
    { gateway: load(1, 1100), bare: load(1, 1000) },
  ]
  const summed = saturated(rounds)
  t.equal(summed.throughputRatio, 0.9)
  t.equal(summed.gateway, rounds[0].gateway, "the median round's own loads, not medians taken apart")
  t.equal(summed.bare, rounds[0].bare)
  t.same(summed.saturatedRounds, rounds)
  t.equal(saturated([rounds[1], rounds[2]]).throughputRatio, 1.1, 'an even count: the higher of the middle two')
  t.throws(() => saturated([]), /no round/)
})

t.test('each side is its round with the median p99, taken apart from the other side', async (t) => {
  const rounds = [
    { gateway: load(2.4, 1), bare: load(0.5, 11) },
    { gateway: load(0.8, 2), bare: load(3.4, 12) },
    { gateway: load(1.1, 3), bare: load(0.9, 13) },
  ]
  const summed = halfRate(rounds)
  t.equal(summed.atHalfRate, rounds[2].gateway, 'the gateway round in the middle, whole (its rate and CPU with it)')
  t.equal(summed.bareAtHalfRate, rounds[2].bare)
  t.same(summed.halfRateRounds, rounds, 'every round kept, in the order run')
  t.same(
    rounds.map((round) => round.gateway.p99Ms),
    [2.4, 0.8, 1.1],
    'the rounds are not reordered',
  )
})

t.test('with an even count the higher of the middle two; one round is itself', async (t) => {
  const even = halfRate([
    { gateway: load(1), bare: load(4) },
    { gateway: load(3), bare: load(2) },
  ])
  t.equal(even.atHalfRate?.p99Ms, 3)
  t.equal(even.bareAtHalfRate?.p99Ms, 4)
  const one = halfRate([{ gateway: load(5), bare: load(6) }])
  t.equal(one.atHalfRate?.p99Ms, 5)
  t.equal(one.bareAtHalfRate?.p99Ms, 6)
  t.throws(() => halfRate([]), /no paced round/)
})

t.test('the row prints the median figures and, for several rounds, each round', async (t) => {
  const comparison = {
    ...compared(load(2, 900), load(1, 1000)),
    ...halfRate([
      { gateway: load(2.4), bare: load(0.5) },
      { gateway: load(0.8), bare: load(3.4) },
      { gateway: load(1.1), bare: load(0.9) },
    ]),
  }
  t.match(row('GET /x', comparison), /1\.1 @ 1000\/s \(bare 0\.9\) \[rounds 2\.4\/0\.8\/1\.1, bare 0\.5\/3\.4\/0\.9\]/)
  const single = { ...compared(load(2), load(1)), ...halfRate([{ gateway: load(2.4), bare: load(0.5) }]) }
  t.notMatch(row('GET /x', single), /rounds/)
  const both = {
    ...saturated([
      { gateway: load(1, 900), bare: load(1, 1000) },
      { gateway: load(1, 950), bare: load(1, 1000) },
    ]),
    ...halfRate([{ gateway: load(2.4), bare: load(0.5) }]),
  }
  t.match(row('GET /x', both), /; ratio by round 0\.90\/0\.95$/)
  t.notMatch(row('GET /x', single), /ratio by round/)
})

t.test('rounds alternate which server goes first: the bare server in even rounds, the gateway in odd ones', async (t) => {
  const order: string[] = []
  const measuring = (server: string, p99Ms: number) => async () => (order.push(server), load(p99Ms))
  const pairs = []
  for (let round = 0; round < 3; round++) pairs.push(await inTurn(round, measuring('gateway', 1), measuring('bare', 2)))
  t.same(order, ['bare', 'gateway', 'gateway', 'bare', 'bare', 'gateway'])
  t.same(
    pairs.map((pair) => [pair.gateway.p99Ms, pair.bare.p99Ms]),
    [
      [1, 2],
      [1, 2],
      [1, 2],
    ],
    'each load kept on its own side',
  )
})
