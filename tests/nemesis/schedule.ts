// The nemesis's schedule: a seeded list of steps, made before anything runs, so a seed names
// one exact sequence (SEED=… reproduces it) and a failure can print the steps it took.
// Steps that act on an order name one by a number in [0, 1) (`pick`): the harness resolves
// it against what it holds at that moment (an inactive name for a create, an active one for
// a clear), so a step never depends on how an earlier one came out.
//
// The world's clock follows what a box without a real-time clock lives through: a wrong
// time is never reported synchronised (the system clock is only "right" once network time
// answered), so a step while running happens while unsynchronised, and synchronisation
// brings the clock to the right time with it, as NTP does.
import { prng } from '../crash/verify.ts'

export type CreateVia = 'v2' | 'v1' | 'sim'
export type ClearVia = 'v2-name' | 'v2-uuid' | 'v1' | 'sim'

export type Step =
  | { kind: 'create'; pick: number; via: CreateVia; orderType: 'TO_GO' | 'ON_PREMISE'; table: number | null }
  | { kind: 'locate'; pick: number; table: number; via: 'v2' | 'sim' }
  | { kind: 'page'; pick: number; tracking: boolean }
  | { kind: 'unpage'; pick: number }
  | { kind: 'clear'; pick: number; via: ClearVia }
  /** Real time passes (orders age). */
  | { kind: 'wait'; ms: number }
  /** SIGKILL, then start again on the same data dir; the clock may have been moved while down. */
  | { kind: 'kill'; downOffsetSec: number | null }
  /** A power cut: SIGKILL, then a boot with the clock at `offsetSec` and not synchronised. */
  | { kind: 'powercut'; offsetSec: number }
  /** SIGTERM and start again. */
  | { kind: 'restart' }
  /** The wall clock stepped by `deltaSec` while the gateway runs (not synchronised). */
  | { kind: 'step'; deltaSec: number }
  /** Network time answers (clock to the right time, synchronised) or goes away. */
  | { kind: 'sync'; synchronized: boolean }
  /** A backup by hand through the control socket. */
  | { kind: 'backup' }
  /** The box dies; backup number `pick` (of those taken) is restored into a fresh data dir. */
  | { kind: 'restore'; pick: number }
  /** The data dir's file system fills up: writes and a backup are refused, then space comes back. */
  | { kind: 'fulldisk' }

export interface ScheduleOptions {
  /** Steps in the schedule (default 24). */
  steps?: number
  /** Share of steps that are faults (kills, clock moves, backups...) rather than order operations. */
  faultShare?: number
  /** Leave out backup/restore steps (and full-disk ones). */
  noBackups?: boolean
  noFullDisk?: boolean
}

/** Seconds of an offset or step: minutes, hours or a day or two, either way. */
function clockAmount(rng: () => number): number {
  const roll = rng()
  const magnitude = roll < 0.35 ? 30 + rng() * 600 : roll < 0.7 ? 3600 * (1 + rng() * 6) : 86_400 * (1 + rng())
  return Math.round(magnitude) * (rng() < 0.5 ? -1 : 1)
}

/** The offset a box boots with after a power cut: mostly behind (the time it saved), sometimes ahead. */
function bootOffset(rng: () => number): number {
  const amount = Math.abs(clockAmount(rng))
  return rng() < 0.8 ? -amount : amount
}

/** Keeps the clock within three days of the right time (a certificate, a restore stay meaningful). */
const maxOffsetSec = 3 * 86_400

export function generateSchedule(seed: number, options: ScheduleOptions = {}): Step[] {
  const rng = prng(seed)
  const count = options.steps ?? 24
  const faultShare = options.faultShare ?? 0.4
  const steps: Step[] = []
  let offset = 0
  let synchronized = true
  let backups = 0
  const pick = () => Math.round(rng() * 1e6) / 1e6
  const table = () => 1 + Math.floor(rng() * 30)
  for (let i = 0; i < count; i++) {
    // A schedule opens with orders on the board, so the faults that follow have something to hit.
    if (i < 3 || rng() >= faultShare) {
      const roll = i < 3 ? 0 : rng()
      if (roll < 0.35) {
        const via: CreateVia = rng() < 0.5 ? 'v2' : rng() < 0.5 ? 'sim' : 'v1'
        steps.push({ kind: 'create', pick: pick(), via, orderType: rng() < 0.3 ? 'TO_GO' : 'ON_PREMISE', table: via !== 'sim' && rng() < 0.4 ? table() : null })
      } else if (roll < 0.5) steps.push({ kind: 'locate', pick: pick(), table: table(), via: rng() < 0.5 ? 'v2' : 'sim' })
      else if (roll < 0.6) steps.push({ kind: 'page', pick: pick(), tracking: rng() < 0.6 })
      else if (roll < 0.65) steps.push({ kind: 'unpage', pick: pick() })
      else if (roll < 0.88) {
        const r = rng()
        steps.push({ kind: 'clear', pick: pick(), via: r < 0.4 ? 'v2-name' : r < 0.65 ? 'v2-uuid' : r < 0.85 ? 'sim' : 'v1' })
      } else steps.push({ kind: 'wait', ms: 100 + Math.round(rng() * 700) })
      continue
    }
    const roll = rng()
    if (roll < 0.12) {
      const moved = rng() < 0.4 && !synchronized
      const downOffsetSec = moved ? clamp(offset + clockAmount(rng)) : null
      if (downOffsetSec !== null) offset = downOffsetSec
      steps.push({ kind: 'kill', downOffsetSec })
    } else if (roll < 0.26) {
      offset = bootOffset(rng)
      synchronized = false
      steps.push({ kind: 'powercut', offsetSec: offset })
    } else if (roll < 0.31) {
      steps.push({ kind: 'restart' })
    } else if (roll < 0.47) {
      if (synchronized) {
        // A step needs a clock that is not synchronised: the network goes first.
        synchronized = false
        steps.push({ kind: 'sync', synchronized: false })
      }
      let delta = clockAmount(rng)
      if (Math.abs(offset + delta) > maxOffsetSec) delta = -delta
      offset += delta
      steps.push({ kind: 'step', deltaSec: delta })
    } else if (roll < 0.6) {
      synchronized = !synchronized || rng() < 0.3
      if (synchronized) offset = 0
      steps.push({ kind: 'sync', synchronized })
    } else if (roll < 0.86 && !options.noBackups) {
      // A restore needs a backup: until there is one, this is a backup.
      if (roll < 0.72 || backups === 0) {
        backups++
        steps.push({ kind: 'backup' })
      } else steps.push({ kind: 'restore', pick: pick() })
    } else if (!options.noFullDisk) {
      steps.push({ kind: 'fulldisk' })
    } else {
      steps.push({ kind: 'restart' })
    }
  }
  return steps

  function clamp(value: number): number {
    return Math.max(-maxOffsetSec, Math.min(maxOffsetSec, value))
  }
}

/** One line per step, numbered from 1, as printed on failure. */
export function describeSchedule(steps: readonly Step[]): string[] {
  return steps.map((step, i) => `${String(i + 1).padStart(3)}. ${describeStep(step)}`)
}

export function describeStep(step: Step): string {
  const { kind, ...rest } = step
  const args = Object.entries(rest).map(([key, value]) => `${key}=${value}`)
  return [kind, ...args].join(' ')
}
