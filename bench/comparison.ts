// What `npm run bench` compares and how it prints a row: a load's figures for the gateway
// beside the bare server's, their ratios, and the rounds they come from.
import type { PacedResult } from './paced-client.ts'

const round = (n: number, digits = 2) => Number(n.toFixed(digits))

export interface Load {
  rps: number
  p50Ms: number
  p99Ms: number
  cpuMicrosPerRequest: number
  requests: number
  non2xx: number
  errors: number
  /** Paced runs: the load generator's own pauses over 1 ms (see PacedResult.stalls). */
  clientStalls?: PacedResult['stalls']
}

export interface Comparison {
  gateway: Load
  bare: Load
  throughputRatio: number
  cpuRatio: number
  /** The gateway at half its saturated rate: its round with the median p99 (halfRate()). */
  atHalfRate?: Load
  /** The bare server at the same paced rate, its median round: the floor this machine and client give. */
  bareAtHalfRate?: Load
  /** Every saturated round in the order run (which of the two went first alternates). */
  saturatedRounds?: LoadPair[]
  /** Every paced round in the order run (which of the two went first alternates). */
  halfRateRounds?: LoadPair[]
}

/** One round: the gateway and the bare server under the same load, one after the other. */
export interface LoadPair {
  gateway: Load
  bare: Load
}

/**
 * One round of a comparison: the bare server first in even rounds, the gateway first in odd
 * ones, so neither always meets the machine a window later (or right after the other's
 * saturated run).
 */
export async function inTurn(round: number, gatewayLoad: () => Promise<Load>, bareLoad: () => Promise<Load>): Promise<LoadPair> {
  if (round % 2 === 0) {
    const bare = await bareLoad()
    return { gateway: await gatewayLoad(), bare }
  }
  const gateway = await gatewayLoad()
  return { gateway, bare: await bareLoad() }
}

export function compared(gateway: Load, bare: Load): Comparison {
  return {
    gateway,
    bare,
    throughputRatio: round(gateway.rps / bare.rps),
    cpuRatio: round(bare.cpuMicrosPerRequest / gateway.cpuMicrosPerRequest),
  }
}

/**
 * The saturated rounds summed up: the round whose throughput ratio is the median (with an
 * even count, the higher of the middle two), its loads and ratios as the comparison's, and
 * every round. The two servers of a round run back to back, so a ratio within a round is
 * steadier than one across rounds on a VM whose speed drifts by a tenth in minutes.
 */
export function saturated(rounds: LoadPair[]): Comparison {
  if (rounds.length === 0) throw new Error('saturated: no round')
  const byRatio = rounds.map((round) => compared(round.gateway, round.bare)).sort((a, b) => a.throughputRatio - b.throughputRatio)
  return { ...byRatio[Math.floor(rounds.length / 2)]!, saturatedRounds: rounds }
}

/**
 * The paced rounds summed up: for each side the round with the median p99 (with an even
 * count, the higher of the middle two). One 10 s window's p99 on a shared VM moves by 2×
 * from run to run, mostly through the load generator's own pauses; the middle of several
 * alternating windows is steadier than any one of them.
 */
export function halfRate(rounds: LoadPair[]): Pick<Comparison, 'atHalfRate' | 'bareAtHalfRate' | 'halfRateRounds'> {
  if (rounds.length === 0) throw new Error('halfRate: no paced round')
  const median = (loads: Load[]) => [...loads].sort((a, b) => a.p99Ms - b.p99Ms)[Math.floor(loads.length / 2)]
  return {
    atHalfRate: median(rounds.map((round) => round.gateway)),
    bareAtHalfRate: median(rounds.map((round) => round.bare)),
    halfRateRounds: rounds,
  }
}

/** Each round's p99, gateway then bare, when there was more than one round. */
function roundsNote(c: Comparison): string {
  const rounds = c.halfRateRounds ?? []
  if (rounds.length < 2) return ''
  return ` [rounds ${rounds.map((round) => round.gateway.p99Ms).join('/')}, bare ${rounds.map((round) => round.bare.p99Ms).join('/')}]`
}

/** Each saturated round's ratio, when there was more than one. */
function ratiosNote(c: Comparison): string {
  const rounds = c.saturatedRounds ?? []
  if (rounds.length < 2) return ''
  return `; ratio by round ${rounds.map((round) => compared(round.gateway, round.bare).throughputRatio.toFixed(2)).join('/')}`
}

/** The paced client's longest pauses, when any was long enough to weigh on a p99 of a few ms. */
function stallNote(c: Comparison): string {
  const gateway = c.atHalfRate?.clientStalls?.maxMs ?? 0
  const bare = c.bareAtHalfRate?.clientStalls?.maxMs ?? 0
  return gateway >= 2 || bare >= 2 ? `, load generator paused up to ${gateway}/${bare} ms` : ''
}

export function row(name: string, c: Comparison): string {
  const g = c.gateway
  const b = c.bare
  return (
    `${name.padEnd(34)} ${String(b.rps).padStart(8)} ${String(g.rps).padStart(8)} ${c.throughputRatio.toFixed(2).padStart(6)}  ` +
    `${b.cpuMicrosPerRequest.toFixed(0).padStart(5)} ${g.cpuMicrosPerRequest.toFixed(0).padStart(5)} ${c.cpuRatio.toFixed(2).padStart(6)}  ` +
    `${String(g.p99Ms).padStart(6)} ${c.atHalfRate ? `${c.atHalfRate.p99Ms} @ ${c.atHalfRate.rps}/s (bare ${c.bareAtHalfRate?.p99Ms})${roundsNote(c)}${stallNote(c)}` : ''}${ratiosNote(c)}` +
    (g.non2xx || g.errors ? `  (gateway non-2xx ${g.non2xx}, errors ${g.errors})` : '')
  )
}
