// Prometheus' text exposition format (version 0.0.4), written by hand: the gateway and HQ
// need gauges and counters read at scrape time, and prom-client cost the gateway about 8.6 MB
// of resident memory to import (docs/decisions/0018-metrics-without-prom-client.md). A family
// is its name, help, type and samples; nothing is kept between scrapes but the callers' own
// counters.

export type MetricType = 'gauge' | 'counter'

export interface Sample {
  labels?: Record<string, string>
  value: number
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
    for (const sample of family.samples) lines.push(`${family.name}${formatLabels(sample.labels)} ${formatValue(sample.value)}`)
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
