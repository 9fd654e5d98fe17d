// What `npm run bench` compares and how it prints a row: a load's figures for the gateway
// beside the bare server's, and their ratios.
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
  atHalfRate?: Load
  /** The bare server at the same paced rate: the floor this machine and client give. */
  bareAtHalfRate?: Load
}

export function compared(gateway: Load, bare: Load): Comparison {
  return {
    gateway,
    bare,
    throughputRatio: round(gateway.rps / bare.rps),
    cpuRatio: round(bare.cpuMicrosPerRequest / gateway.cpuMicrosPerRequest),
  }
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
    `${String(g.p99Ms).padStart(6)} ${c.atHalfRate ? `${c.atHalfRate.p99Ms} @ ${c.atHalfRate.rps}/s (bare ${c.bareAtHalfRate?.p99Ms})${stallNote(c)}` : ''}` +
    (g.non2xx || g.errors ? `  (gateway non-2xx ${g.non2xx}, errors ${g.errors})` : '')
  )
}
