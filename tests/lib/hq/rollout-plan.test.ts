// The wave planner: every site in exactly one wave, the canary first, the same waves whatever
// the order the sites come in (fast-check prints the seed of a failing case; FC_SEED=<seed>
// runs it again).
import fc from 'fast-check'
import t from 'tap'
import { planWaves, WavePlanError } from '../../../lib/hq/rollout-plan.ts'

const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined
const siteIds = fc.uniqueArray(fc.stringMatching(/^[a-z0-9-]{1,8}$/), { minLength: 1, maxLength: 60 })
const percentages = fc.uniqueArray(fc.integer({ min: 1, max: 100 }), { maxLength: 5 }).map((list) => list.sort((a, b) => a - b))

t.test('property: each site in exactly one wave, canary first, stable under reordering', async (t) => {
  fc.assert(
    fc.property(siteIds, percentages, fc.integer({ min: 1, max: 5 }), fc.boolean(), fc.integer(), (sites, percents, count, explicit, shuffleSeed) => {
      const canary = explicit ? [sites[Math.abs(shuffleSeed) % sites.length]!] : undefined
      const spec = { canary, canaryCount: count, percentages: percents }
      const waves = planWaves(sites, spec)
      const flat = waves.flat()
      if (flat.length !== sites.length || new Set(flat).size !== sites.length || !sites.every((site) => flat.includes(site))) return false
      if (waves.some((wave) => wave.length === 0)) return false
      const expectedCanary = canary ?? [...sites].sort().slice(0, count)
      if (JSON.stringify(waves[0]) !== JSON.stringify([...expectedCanary].sort())) return false
      const reordered = [...sites].sort(() => (shuffleSeed % 3) - 1).reverse()
      return JSON.stringify(planWaves(reordered, spec)) === JSON.stringify(waves)
    }),
    { seed },
  )
  t.pass('every generated case holds')
})

t.test('waves: canary, then cumulative percentages of the others, then the rest', async (t) => {
  const sites = Array.from({ length: 21 }, (_, i) => `s${String(i).padStart(2, '0')}`)
  const waves = planWaves(sites, { canary: ['s10'], percentages: [10, 50] })
  t.same(
    waves.map((wave) => wave.length),
    [1, 2, 8, 10],
  )
  t.same(waves[0], ['s10'])
  t.same(waves[1], ['s00', 's01'])
  t.same(planWaves(['b', 'a', 'c'], {}), [['a'], ['b', 'c']], 'default: one canary (the first by id), then the rest')
  t.same(planWaves(['a'], { percentages: [50] }), [['a']], 'a single site is its own canary')
})

t.test('bad specs are refused with the reason', async (t) => {
  t.throws(() => planWaves([], {}), new WavePlanError('no site to roll out to'))
  t.throws(() => planWaves(['a', 'b'], { canary: ['z'] }), /canary site "z" is not one of/)
  t.throws(() => planWaves(['a', 'b'], { percentages: [50, 20] }), /percentages must rise/)
})
