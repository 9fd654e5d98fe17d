// The rollout state machine (lib/hq/rollout-machine.ts), step by step with its time given.
import t from 'tap'
import { advance, operate, type MachineRollout, type MachineSite, type ReportedState, type Step } from '../../../lib/hq/rollout-machine.ts'

const minute = 60_000

function rollout(overrides: Partial<MachineRollout> = {}): MachineRollout {
  return {
    id: 1,
    version: '0.2.0',
    state: 'running',
    waves: [['canary'], ['b', 'c']],
    currentWave: 0,
    waveStartedAt: null,
    waveDoneAt: null,
    soakMs: 5 * minute,
    offline: 'catch-up',
    reason: null,
    ...overrides,
  }
}

function sites(r: MachineRollout): MachineSite[] {
  return r.waves.flatMap((wave, index) =>
    wave.map((siteId) => ({ siteId, wave: index, state: 'pending' as const, reason: null, attempt: 1, online: true, version: '0.1.0', report: null })),
  )
}

/** The sites after the site reported (as its status would). */
function report(step: Step, siteId: string, state: ReportedState, reason: string | null = null): MachineSite[] {
  return step.sites.map((site) => (site.siteId === siteId ? { ...site, report: { state, reason } } : site))
}

const states = (step: Step) => Object.fromEntries(step.sites.map((site) => [site.siteId, site.state]))

t.test('a good release: canary, soak, the rest, done', async (t) => {
  const r = rollout()
  let step = advance(r, sites(r), 0)
  t.same(step.commands, [{ siteId: 'canary', action: 'upgrade', attempt: 1 }], 'only the canary is told')
  t.same(states(step), { canary: 'told', b: 'pending', c: 'pending' })
  step = advance(step.rollout, report(step, 'canary', 'downloading'), minute)
  t.equal(step.sites[0]!.state, 'downloading')
  t.same(step.commands, [])
  step = advance(step.rollout, report(step, 'canary', 'done'), 2 * minute)
  t.equal(step.rollout.waveDoneAt, 2 * minute, 'the wave is done: its soak starts')
  step = advance(step.rollout, step.sites, 6 * minute)
  t.same(step.commands, [], 'still soaking')
  step = advance(step.rollout, step.sites, 7 * minute)
  t.equal(step.rollout.currentWave, 1)
  t.same(
    step.commands.map((c) => c.siteId),
    ['b', 'c'],
    'after the soak, the next wave is told',
  )
  step = advance(step.rollout, report({ ...step, sites: report(step, 'b', 'done') }, 'c', 'done'), 8 * minute)
  t.equal(step.rollout.state, 'running', 'the last wave soaks too')
  step = advance(step.rollout, step.sites, 13 * minute)
  t.equal(step.rollout.state, 'done')
})

t.test('a failure at the canary halts: the others are never told; resume tells the failed site again', async (t) => {
  const r = rollout()
  let step = advance(r, sites(r), 0)
  step = advance(step.rollout, report(step, 'canary', 'failed', '0.2.0 failed its health check: restart loop'), minute)
  t.equal(step.rollout.state, 'halted')
  t.match(step.rollout.reason, /canary: 0\.2\.0 failed its health check/)
  step = advance(step.rollout, step.sites, 60 * minute)
  t.same(states(step), { canary: 'failed', b: 'pending', c: 'pending' }, 'halted: nothing moves, however long')
  t.same(step.commands, [])
  const resumed = operate(step.rollout, step.sites, 'resume')
  t.equal(resumed.rollout.state, 'running')
  t.same(resumed.commands, [{ siteId: 'canary', action: 'upgrade', attempt: 2 }])
  t.same(states(resumed), { canary: 'told', b: 'pending', c: 'pending' })
  const stale = advance(resumed.rollout, resumed.sites, 61 * minute)
  t.equal(stale.rollout.state, 'running', "the first attempt's report is not the second's")
})

t.test('a failure in a wave stands down the sites of it not yet upgrading', async (t) => {
  const r = rollout({ waves: [['a'], ['b', 'c', 'd']], soakMs: 0 })
  let step = advance(r, sites(r), 0)
  step = advance(step.rollout, report(step, 'a', 'done'), 1)
  t.same(states(step), { a: 'done', b: 'told', c: 'told', d: 'told' })
  const sitesNow = report(
    { ...step, sites: report({ ...step, sites: report(step, 'b', 'failed', 'download: checksum') }, 'c', 'upgrading') },
    'd',
    'waiting-for-window',
  )
  step = advance(step.rollout, sitesNow, 2)
  t.equal(step.rollout.state, 'halted')
  t.same(states(step), { a: 'done', b: 'failed', c: 'upgrading', d: 'cancelled' })
  t.same(step.commands, [{ siteId: 'd', action: 'stand-down' }])
  step = advance(step.rollout, report(step, 'c', 'done'), 3)
  t.equal(step.sites.find((s) => s.siteId === 'c')!.state, 'done', 'an upgrade under way finishes and is recorded')
  const late = advance(step.rollout, report(step, 'd', 'upgrading'), 4)
  t.equal(late.sites.find((s) => s.siteId === 'd')!.state, 'upgrading', 'a stand-down that came too late yields to what the site does')
  t.equal(advance(step.rollout, report(step, 'd', 'downloading'), 4).sites.find((s) => s.siteId === 'd')!.state, 'cancelled', 'but not to a step before it')
  const cancelled = operate(step.rollout, step.sites, 'cancel')
  t.equal(cancelled.rollout.state, 'cancelled')
  t.same(cancelled.commands, [], 'nothing left to stand down')
  t.throws(() => operate(cancelled.rollout, cancelled.sites, 'resume'), /the rollout is cancelled: nothing to resume/)
})

t.test('offline sites: catch-up does not hold the wave; skip skips them', async (t) => {
  for (const offline of ['catch-up', 'skip'] as const) {
    const r = rollout({ offline, soakMs: 0 })
    const start = sites(r).map((site) => (site.siteId === 'b' ? { ...site, online: false } : site))
    let step = advance(r, start, 0)
    step = advance(step.rollout, report(step, 'canary', 'done'), 1)
    t.same(
      step.commands,
      offline === 'skip'
        ? [{ siteId: 'c', action: 'upgrade', attempt: 1 }]
        : [
            { siteId: 'b', action: 'upgrade', attempt: 1 },
            { siteId: 'c', action: 'upgrade', attempt: 1 },
          ],
    )
    step = advance(step.rollout, report(step, 'c', 'done'), 2)
    if (offline === 'skip') {
      t.equal(step.rollout.state, 'done', 'skip: done without the offline site')
      t.equal(step.sites.find((s) => s.siteId === 'b')!.state, 'skipped')
    } else {
      t.equal(step.rollout.state, 'running', 'catch-up: the rollout waits for the offline site, told already')
      const back = step.sites.map((site) => (site.siteId === 'b' ? { ...site, online: true, report: { state: 'done' as const, reason: null } } : site))
      t.equal(advance(step.rollout, back, 3).rollout.state, 'done')
    }
  }
})

t.test('pause holds the next wave; cancel stands down the sites told; a site on the version is done at once', async (t) => {
  const r = rollout({ soakMs: 0 })
  const start = sites(r).map((site) => (site.siteId === 'c' ? { ...site, version: '0.2.0' } : site))
  let step = advance(r, start, 0)
  step = operate(step.rollout, step.sites, 'pause')
  t.throws(() => operate(step.rollout, step.sites, 'pause'), /only a running rollout can be paused/)
  step = advance(step.rollout, report(step, 'canary', 'done'), 1)
  t.equal(step.rollout.currentWave, 0, 'paused: the next wave waits')
  step = operate(step.rollout, step.sites, 'resume')
  step = advance(step.rollout, step.sites, 2)
  t.same(states(step), { canary: 'done', b: 'told', c: 'done' })
  t.equal(step.sites.find((s) => s.siteId === 'c')!.reason, 'already runs this version')
  const cancelled = operate(step.rollout, step.sites, 'cancel')
  t.same(cancelled.commands, [{ siteId: 'b', action: 'stand-down' }])
  t.same(states(cancelled), { canary: 'done', b: 'cancelled', c: 'done' })
})

t.test('pause stands down the sites not yet upgrading (a site waiting for its window would upgrade during it); resume tells them again', async (t) => {
  const r = rollout({ soakMs: 0, waves: [['a', 'b', 'c']] })
  let step = advance(r, sites(r), 0)
  const sitesNow = report({ ...step, sites: report(step, 'a', 'waiting-for-window', 'outside the hours 02:00-05:00') }, 'b', 'upgrading')
  step = advance(step.rollout, sitesNow, 1)
  step = operate(step.rollout, step.sites, 'pause')
  t.equal(step.rollout.state, 'paused')
  t.same(
    step.commands,
    [
      { siteId: 'a', action: 'stand-down' },
      { siteId: 'c', action: 'stand-down' },
    ],
    'the site upgrading finishes; the others stand down',
  )
  t.same(states(step), { a: 'cancelled', b: 'upgrading', c: 'cancelled' })
  t.equal(step.sites[0]!.reason, 'rollout paused')
  step = advance(step.rollout, report(step, 'b', 'done'), 2)
  t.equal(step.rollout.state, 'paused', 'a paused rollout does not end')
  step = operate(step.rollout, step.sites, 'resume')
  t.same(step.commands, [
    { siteId: 'a', action: 'upgrade', attempt: 2 },
    { siteId: 'c', action: 'upgrade', attempt: 2 },
  ])
  t.same(states(step), { a: 'told', b: 'done', c: 'told' })
  step = advance(step.rollout, report({ ...step, sites: report(step, 'a', 'done') }, 'c', 'done'), 3)
  t.equal(step.rollout.state, 'done')
})

t.test('catch-up: an offline site of an earlier wave, stood down by a halt, is told again at the resume', async (t) => {
  const r = rollout({
    soakMs: 0,
    waves: [
      ['a', 'b'],
      ['c', 'd'],
    ],
  })
  const start = sites(r).map((site) => (site.siteId === 'b' ? { ...site, online: false } : site))
  let step = advance(r, start, 0)
  t.same(states(step), { a: 'told', b: 'told', c: 'pending', d: 'pending' }, 'b told while offline (the command is retained)')
  step = advance(step.rollout, report(step, 'a', 'done'), 1)
  t.equal(step.rollout.currentWave, 1, 'b does not hold its wave')
  step = advance(step.rollout, report(step, 'c', 'failed', 'checksum'), 2)
  t.equal(step.rollout.state, 'halted')
  t.same(states(step), { a: 'done', b: 'cancelled', c: 'failed', d: 'cancelled' })
  step = operate(step.rollout, step.sites, 'resume')
  t.same(step.commands, [
    { siteId: 'b', action: 'upgrade', attempt: 2 },
    { siteId: 'c', action: 'upgrade', attempt: 2 },
    { siteId: 'd', action: 'upgrade', attempt: 2 },
  ])
  step = advance(step.rollout, report({ ...step, sites: report(step, 'c', 'done') }, 'd', 'done'), 3)
  t.equal(step.rollout.state, 'running', 'the rollout waits for b to catch up (before the fix it ended done without it)')
  const back = step.sites.map((site) => (site.siteId === 'b' ? { ...site, online: true, report: { state: 'done' as const, reason: null } } : site))
  t.equal(advance(step.rollout, back, 4).rollout.state, 'done')
})

t.test('an offline canary holds the rollout until it runs the release, whatever the offline choice', async (t) => {
  for (const offline of ['catch-up', 'skip'] as const) {
    const r = rollout({ offline, waves: [['canary', 'canary-2'], ['b']] })
    const offlineCanaries = sites(r).map((site) => (site.wave === 0 ? { ...site, online: false } : site))
    let step = advance(r, offlineCanaries, 0)
    t.same(states(step), { canary: 'told', 'canary-2': 'told', b: 'pending' }, `${offline}: canaries are told, never skipped`)
    step = advance(step.rollout, step.sites, 60 * minute)
    t.equal(step.rollout.currentWave, 0, `${offline}: no canary ran the release: the next wave waits`)
    t.equal(step.rollout.waveDoneAt, null)
    t.same(step.commands, [])
    // One canary comes back and upgrades; the other, still offline, does not hold the rollout then (catch-up) ...
    const back = step.sites.map((site) => (site.siteId === 'canary' ? { ...site, online: true, report: { state: 'done' as const, reason: null } } : site))
    step = advance(step.rollout, back, 61 * minute)
    t.equal(step.rollout.waveDoneAt, 61 * minute, `${offline}: a canary runs the release: the wave is done, its soak starts`)
    step = advance(step.rollout, step.sites, 66 * minute)
    t.equal(step.rollout.currentWave, 1, `${offline}: the next wave after the soak`)
    t.same(step.commands, [{ siteId: 'b', action: 'upgrade', attempt: 1 }])
  }
})
