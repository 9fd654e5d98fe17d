// Prometheus' text exposition format (version 0.0.4), written by hand: the gateway and HQ
// need gauges and counters read at scrape time (and request-duration histograms), and prom-client cost the gateway about 8.6 MB
// of resident memory to import (docs/decisions/0018-metrics-without-prom-client.md). A family
// is its name, help, type and samples; nothing is kept between scrapes but the callers' own
// counters.

export type MetricType = 'gauge' | 'counter' | 'histogram'

export interface Sample {
  labels?: Record<string, string>
  value: number
  /** A histogram's series: its name is the family's with this suffix. */
  suffix?: '_bucket' | '_sum' | '_count'
}

export interface MetricFamily {
  /** [a-zA-Z_:][a-zA-Z0-9_:]*; a counter's ends in _total. */
  name: string
  help: string
  type: MetricType
  samples: Sample[]
}

/** What /metrics serves, rendered at each scrape. */
export interface MetricsSource {
  exposition(): Promise<string>
}

export const expositionContentType = 'text/plain; version=0.0.4; charset=utf-8'

const metricName = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const labelName = /^[a-zA-Z_][a-zA-Z0-9_]*$/

// The format's escapes: in help, backslash and newline; in label values, also the double quote.
const escapeHelp = (text: string) => text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')
const escapeLabel = (text: string) => text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"')

function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN'
  if (value === Infinity) return '+Inf'
  if (value === -Infinity) return '-Inf'
  return String(value)
}

function formatLabels(labels: Record<string, string> | undefined): string {
  if (!labels) return ''
  const parts: string[] = []
  for (const [name, value] of Object.entries(labels)) {
    if (!labelName.test(name) || name.startsWith('__')) throw new Error(`metrics: bad label name ${JSON.stringify(name)}`)
    parts.push(`${name}="${escapeLabel(value)}"`)
  }
  return parts.length ? `{${parts.join(',')}}` : ''
}

/** The families as the text format, each with its HELP and TYPE lines; a bad name throws (a programming error). */
export function renderExposition(families: MetricFamily[]): string {
  const lines: string[] = []
  const seen = new Set<string>()
  for (const family of families) {
    if (!metricName.test(family.name)) throw new Error(`metrics: bad metric name ${JSON.stringify(family.name)}`)
    if (seen.has(family.name)) throw new Error(`metrics: ${family.name} twice`)
    seen.add(family.name)
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`)
    for (const sample of family.samples) lines.push(`${family.name}${sample.suffix ?? ''}${formatLabels(sample.labels)} ${formatValue(sample.value)}`)
  }
  return `${lines.join('\n')}\n`
}

/** A time (ms since the epoch) as Prometheus counts it (seconds), or NaN when there is none. */
export function epochSeconds(ms: number | null | undefined): number {
  return ms === null || ms === undefined ? Number.NaN : ms / 1000
}

/**
 * Counts by two labels (the gateway's requests by route and status). A map of maps: one
 * lookup and one increment per count, nothing allocated once a pair has been seen.
 */
export class PairCounts {
  readonly #counts = new Map<string, Map<number, number>>()

  add(first: string, second: number): void {
    let inner = this.#counts.get(first)
    if (!inner) this.#counts.set(first, (inner = new Map()))
    inner.set(second, (inner.get(second) ?? 0) + 1)
  }

  /** Every pair seen, with its count. */
  *entries(): Generator<[string, number, number]> {
    for (const [first, inner] of this.#counts) for (const [second, count] of inner) yield [first, second, count]
  }
}

/** The upper bounds (seconds) of request-duration buckets: a few, fixed, from a quick answer to a stuck one. */
export const durationBuckets = [0.005, 0.025, 0.1, 0.5, 2.5] as const

/**
 * Durations by one key (a route template, never a URL): per key, how many fell in each bucket,
 * above the last, and their sum. An observation is one map lookup, a few comparisons and two
 * additions into the key's array, allocated once when the key is first seen; the cumulative
 * counts Prometheus wants are made at the scrape.
 */
export class DurationHistograms {
  readonly #byKey = new Map<string, Float64Array>()

  observe(key: string, seconds: number): void {
    let counts = this.#byKey.get(key)
    // One slot per bucket, one above the last, then the sum.
    if (!counts) this.#byKey.set(key, (counts = new Float64Array(durationBuckets.length + 2)))
    let slot = 0
    while (slot < durationBuckets.length && seconds > durationBuckets[slot]!) slot++
    counts[slot]!++
    counts[durationBuckets.length + 1]! += seconds
  }

  /** A histogram family's samples: per key, its cumulative buckets (le), +Inf, sum and count. */
  samples(labelsOf: (key: string) => Record<string, string>): Sample[] {
    const samples: Sample[] = []
    for (const [key, counts] of this.#byKey) {
      const labels = labelsOf(key)
      let below = 0
      for (let slot = 0; slot < durationBuckets.length; slot++) {
        below += counts[slot]!
        samples.push({ labels: { ...labels, le: String(durationBuckets[slot]) }, value: below, suffix: '_bucket' })
      }
      below += counts[durationBuckets.length]!
      samples.push({ labels: { ...labels, le: '+Inf' }, value: below, suffix: '_bucket' })
      samples.push({ labels, value: counts[durationBuckets.length + 1]!, suffix: '_sum' })
      samples.push({ labels, value: below, suffix: '_count' })
    }
    return samples
  }
}

/** "METHOD /route" (the requests' key) as method and route labels. */
export function methodAndRoute(key: string): Record<string, string> {
  const space = key.indexOf(' ')
  return { method: key.slice(0, space), route: key.slice(space + 1) }
}
