// A rollout's state machine (issue 46), pure: given the rollout, its sites as stored and what
// the sites last reported (their status messages), and the time, it says what the rollout and
// each site become and which sites must be told to upgrade or to stand down. Every HQ
// instance runs it on a timer over the rows it has locked (lib/hq/rollouts.ts), so whichever
// instance runs it, and after any restart, the rollout goes on from what PostgreSQL holds.
//
//   running   waves one after the other: a wave's sites are told; once each is done (or
//             skipped, or offline and never started, when catching up), the soak time runs,
//             then the next wave; after the last, done once no site is left to catch up.
//             The first wave (the canary) is the release's proof: it is never skipped, and
//             it is complete only once one of its sites runs the release, so an offline
//             canary holds the rollout until it returns (or the operator cancels)
//   paused    the sites told but not yet upgrading stand down (a site waiting for its window
//             would otherwise upgrade during the pause), no wave starts; sites already
//             upgrading finish; resume tells the stood-down sites again (a new attempt)
//   halted    a site failed: the sites told but not yet upgrading stand down; an alert holds
//             (lib/hq/alerts.ts) until the operator resumes (failed and stood-down sites are
//             told again, whatever their wave) or cancels
//   cancelled, done    final

export type RolloutState = 'running' | 'paused' | 'halted' | 'cancelled' | 'done'
export type OfflinePolicy = 'catch-up' | 'skip'
/** What a site reports (its status message's rollout.state), and the states HQ gives it itself. */
export type ReportedState = 'downloading' | 'waiting-for-window' | 'upgrading' | 'done' | 'failed' | 'cancelled'
export type SiteRolloutState = 'pending' | 'told' | 'skipped' | ReportedState

export const finalRolloutStates: ReadonlySet<RolloutState> = new Set(['cancelled', 'done'])
/** A site in one of these is not touched again by this rollout (failed: until a resume). */
const settled: ReadonlySet<SiteRolloutState> = new Set(['done', 'skipped', 'failed', 'cancelled'])
/** Past the point where standing down is possible: the upgrade runs to its end on the box. */
const committed: ReadonlySet<SiteRolloutState> = new Set(['upgrading', 'done', 'failed'])

export interface MachineRollout {
  id: number
  version: string
  state: RolloutState
  waves: string[][]
  currentWave: number
  /** When the current wave's sites were told (null: not yet). */
  waveStartedAt: number | null
  /** When the current wave completed (its soak runs from here). */
  waveDoneAt: number | null
  soakMs: number
  offline: OfflinePolicy
  reason: string | null
}

export interface MachineSite {
  siteId: string
  wave: number
  state: SiteRolloutState
  reason: string | null
  /** Incremented each time the site is told again (a resume after its failure). */
  attempt: number
  /** Whether the site's bridge is online now (its status). */
  online: boolean
  /** The version its status says it runs. */
  version: string | null
  /** Its status' rollout report, when it is about this rollout and this attempt. */
  report: { state: ReportedState; reason: string | null } | null
}

export type Command = { siteId: string; action: 'upgrade'; attempt: number } | { siteId: string; action: 'stand-down' }

export interface Step {
  rollout: MachineRollout
  sites: MachineSite[]
  /** Sites to tell now (published after the transaction commits). */
  commands: Command[]
}

export type Operator = 'pause' | 'resume' | 'cancel'

export class RolloutTransitionError extends Error {
  override name = 'RolloutTransitionError'
}

/** What an operator's pause, resume or cancel makes of the rollout (throws when it does not apply). */
export function operate(rollout: MachineRollout, sites: MachineSite[], action: Operator): Step {
  const next = { ...rollout }
  const nextSites = sites.map((site) => ({ ...site }))
  const commands: Command[] = []
  if (finalRolloutStates.has(rollout.state)) throw new RolloutTransitionError(`the rollout is ${rollout.state}: nothing to ${action}`)
  if (action === 'pause') {
    if (rollout.state !== 'running') throw new RolloutTransitionError(`only a running rollout can be paused (it is ${rollout.state})`)
    next.state = 'paused'
    commands.push(...standDown(nextSites, 'rollout paused'))
  } else if (action === 'resume') {
    if (rollout.state === 'running') throw new RolloutTransitionError('the rollout is running already')
    // The failed sites (after a halt: a passing fault, a download cut, gets its second chance)
    // and those stood down by the halt or the pause are told again, as a new attempt. In a
    // rollout not over, a cancelled site is always one stood down: its wave may be behind the
    // current one (an offline site catching up).
    for (const site of nextSites) {
      if (site.state !== 'failed' && site.state !== 'cancelled') continue
      site.attempt++
      site.state = 'told'
      site.reason = null
      site.report = null
      commands.push({ siteId: site.siteId, action: 'upgrade', attempt: site.attempt })
    }
    next.state = 'running'
    next.reason = null
  } else {
    next.state = 'cancelled'
    next.reason = 'cancelled by the operator'
    for (const site of nextSites) {
      if (committed.has(site.state) || site.state === 'skipped' || site.state === 'cancelled') continue
      const wasTold = site.state !== 'pending'
      site.state = 'cancelled'
      site.reason = 'rollout cancelled'
      if (wasTold) commands.push({ siteId: site.siteId, action: 'stand-down' })
    }
  }
  return { rollout: next, sites: nextSites, commands }
}

/** One step of a rollout at `now`: reports applied, a failure halts, waves start, soak, and the end. */
export function advance(rollout: MachineRollout, sites: MachineSite[], now: number): Step {
  const next = { ...rollout }
  const nextSites = sites.map((site) => ({ ...site }))
  const commands: Command[] = []
  if (rollout.state === 'done') return { rollout: next, sites: nextSites, commands }
  // What the sites said (a site's report moves it on, never back from a final state).
  for (const site of nextSites) {
    if (site.state === 'pending' || site.state === 'skipped') continue
    // A stand-down that came too late (the site was upgrading already) yields to what the site says it did.
    const tooLate = site.state === 'cancelled' && site.report !== null && committed.has(site.report.state)
    if (site.report && (!settled.has(site.state) || tooLate)) {
      site.state = site.report.state
      site.reason = site.report.reason
    }
  }
  if (rollout.state === 'cancelled') return { rollout: next, sites: nextSites, commands }
  const failed = nextSites.filter((site) => site.state === 'failed')
  if (failed.length && rollout.state !== 'halted') {
    next.state = 'halted'
    next.reason = failed.map((site) => `${site.siteId}: ${site.reason ?? 'failed'}`).join('; ')
    // Those told and not yet upgrading stand down; those upgrading finish (and report).
    commands.push(...standDown(nextSites, 'rollout halted'))
    return { rollout: next, sites: nextSites, commands }
  }
  if (next.state !== 'running') return { rollout: next, sites: nextSites, commands }
  const wave = nextSites.filter((site) => site.wave === next.currentWave)
  if (next.waveStartedAt === null) {
    next.waveStartedAt = now
    for (const site of wave) {
      if (site.state !== 'pending') continue
      if (site.version === next.version) {
        site.state = 'done'
        site.reason = 'already runs this version'
      } else if (!site.online && next.offline === 'skip' && next.currentWave > 0) {
        site.state = 'skipped'
        site.reason = 'offline when its wave started'
      } else {
        site.state = 'told'
        commands.push({ siteId: site.siteId, action: 'upgrade', attempt: site.attempt })
      }
    }
  }
  // Offline sites that never started do not hold a later wave: their command waits for them.
  // The canary wave waits for them while none of its sites runs the release yet.
  const proven = next.currentWave > 0 || wave.some((site) => site.state === 'done')
  const waitedFor = (site: MachineSite) => !(proven && site.state === 'told' && !site.online)
  const holding = wave.filter((site) => !settled.has(site.state) && waitedFor(site))
  if (holding.length || !proven) return { rollout: next, sites: nextSites, commands }
  next.waveDoneAt ??= now
  if (now - next.waveDoneAt < next.soakMs) return { rollout: next, sites: nextSites, commands }
  if (next.currentWave + 1 < next.waves.length) {
    next.currentWave++
    next.waveStartedAt = null
    next.waveDoneAt = null
    return merge(commands, advance(next, nextSites, now))
  }
  if (nextSites.every((site) => settled.has(site.state))) {
    next.state = 'done'
    next.reason = null
  }
  return { rollout: next, sites: nextSites, commands }
}

/** The sites told and not yet upgrading stand down (in place); their commands. */
function standDown(sites: MachineSite[], reason: string): Command[] {
  const commands: Command[] = []
  for (const site of sites) {
    if (site.state === 'told' || site.state === 'downloading' || site.state === 'waiting-for-window') {
      site.state = 'cancelled'
      site.reason = reason
      commands.push({ siteId: site.siteId, action: 'stand-down' })
    }
  }
  return commands
}

function merge(commands: Command[], step: Step): Step {
  return { ...step, commands: [...commands, ...step.commands] }
}
