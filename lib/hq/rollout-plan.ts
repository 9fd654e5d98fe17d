// The waves of a rollout (issue 46): the canary site(s) first, then cumulative percentages of
// the other sites, then the rest. The plan is a pure function of the sites and the spec: the
// same sites in any order give the same waves (sites are taken in site-id order), so what
// an operator previews is what runs, and a restarted HQ computes nothing again (the plan is
// stored with the rollout).

export interface WaveSpec {
  /** Canary sites by id (each must be among the sites), or the first `canaryCount` sites. */
  canary?: string[]
  canaryCount?: number
  /** After the canary: cumulative percentages of the other sites (e.g. [10, 50]); the rest is the last wave. */
  percentages?: number[]
}

export class WavePlanError extends Error {
  override name = 'WavePlanError'
}

const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

export function planWaves(sites: readonly string[], spec: WaveSpec): string[][] {
  const all = [...new Set(sites)].sort(byId)
  if (all.length === 0) throw new WavePlanError('no site to roll out to')
  const known = new Set(all)
  const canary = spec.canary?.length ? [...new Set(spec.canary)].sort(byId) : all.slice(0, Math.max(1, spec.canaryCount ?? 1))
  for (const site of canary) if (!known.has(site)) throw new WavePlanError(`canary site "${site}" is not one of the rollout's sites`)
  const isCanary = new Set(canary)
  const rest = all.filter((site) => !isCanary.has(site))
  const waves: string[][] = [canary]
  let taken = 0
  let previous = 0
  for (const percentage of spec.percentages ?? []) {
    if (!(percentage > previous && percentage <= 100)) throw new WavePlanError('percentages must rise, each above 0 and at most 100')
    previous = percentage
    const upTo = Math.min(rest.length, Math.ceil((rest.length * percentage) / 100))
    if (upTo > taken) waves.push(rest.slice(taken, upTo))
    taken = Math.max(taken, upTo)
  }
  if (taken < rest.length) waves.push(rest.slice(taken))
  return waves
}
