// Does headquarters have every change a site published? Seqs are not dense (a gateway
// reserves them in blocks and skips the rest of a block after a crash), so each fleet
// message names the change the site rendered before it (prevSeq): a change covers the span
// (prevSeq, seq], in which the site published nothing else. Per site, chain_seq is the
// point up to which every span arrived; the spans that arrived above it are kept as ranges
// (adjacent spans merge, so a few ranges however the messages were spread over instances
// and batches), and chain_seq moves up as far as they cover without a hole. A clearing is
// whole only with its summary (two messages, events and history). Each instance keeps the
// spans of the batches it committed (PendingChains) and stores them every 5 seconds in
// hq_site_chains, under its rows' locks (so instances never race on it), not in every batch
// and not in hq_sites: an instance behind the other leaves hundreds of ranges per site, and
// rewriting them in every batch, under the apply's locks, cost ingest a quarter of its rate
// at saturation. An instance that dies before storing them only makes HQ ask the sites for
// changes it has (stored once). What stays missing is asked of the site again
// (lib/hq/replay.ts).
import type { SqlClient } from '../store/postgres.ts'
import type { SiteMessage } from './messages.ts'

/** Sorted, disjoint, non-adjacent inclusive integer ranges [low, high]. */
export type Ranges = [number, number][]

export interface SiteSpans {
  events: Ranges
  cleared: Ranges
  history: Ranges
  /** The lowest prevSeq of the batch: where a site seen for the first time starts. */
  firstPrev: number | null
}

/**
 * The spans a batch brings, per site. Messages of older gateways (no prevSeq) are not
 * followed; one whose prevSeq is not below its seq (a change the gateway recorded out of its
 * order, after a failure) is applied but not followed either.
 */
export function batchSpans(messages: SiteMessage[]): Map<string, SiteSpans> {
  const bySite = new Map<string, SiteSpans>()
  for (const message of messages) {
    if (message.kind === 'status' || message.prevSeq === undefined) continue
    const prev = message.prevSeq ?? 0
    if (prev >= message.seq) continue
    let spans = bySite.get(message.siteId)
    if (!spans) bySite.set(message.siteId, (spans = { events: [], cleared: [], history: [], firstPrev: null }))
    spans.firstPrev = spans.firstPrev === null ? prev : Math.min(spans.firstPrev, prev)
    if (message.kind === 'event') {
      spans.events.push([prev + 1, message.seq])
      if (message.change === 'ORDER_CLEARED') spans.cleared.push([message.seq, message.seq])
    } else spans.history.push([message.seq, message.seq])
  }
  return bySite
}

/** Sorted, merged (overlapping and adjacent ranges become one). */
export function normalize(ranges: Ranges): Ranges {
  const sorted = ranges.length > 1 ? [...ranges].sort((a, b) => a[0] - b[0]) : ranges
  const out: Ranges = []
  for (const [low, high] of sorted) {
    const last = out.at(-1)
    if (last && low <= last[1] + 1) last[1] = Math.max(last[1], high)
    else out.push([low, high])
  }
  return out
}

/** The union of two normalized lists, in one pass (a lagging instance can leave hundreds of ranges). */
export function union(a: Ranges, b: Ranges): Ranges {
  if (!b.length) return a
  if (!a.length) return b
  const out: Ranges = []
  let i = 0
  let j = 0
  while (i < a.length || j < b.length) {
    const next = j >= b.length || (i < a.length && a[i]![0] <= b[j]![0]) ? a[i++]! : b[j++]!
    const last = out.at(-1)
    if (last && next[0] <= last[1] + 1) last[1] = Math.max(last[1], next[1])
    else out.push([next[0], next[1]])
  }
  return out
}

/** a less b (both normalized), in one pass. */
export function minus(a: Ranges, b: Ranges): Ranges {
  if (!b.length) return a
  const out: Ranges = []
  let j = 0
  for (const [low, high] of a) {
    let from = low
    while (j < b.length && b[j]![1] < from) j++
    let k = j
    while (k < b.length && b[k]![0] <= high) {
      if (b[k]![0] > from) out.push([from, b[k]![0] - 1])
      from = Math.max(from, b[k]![1] + 1)
      if (b[k]![1] > high) break
      k++
    }
    if (from <= high) out.push([from, high])
  }
  return out
}

/** The parts above seq. */
function above(ranges: Ranges, seq: number): Ranges {
  const out: Ranges = []
  for (const [low, high] of ranges) if (high > seq) out.push([Math.max(low, seq + 1), high])
  return out
}

/** The stored text, '{[6,9],[12,12]}'. */
export function parseRanges(text: string): Ranges {
  if (text.length <= 2) return []
  const out: Ranges = []
  for (const pair of text.slice(2, -2).split('],[')) {
    const comma = pair.indexOf(',')
    out.push([Number(pair.slice(0, comma)), Number(pair.slice(comma + 1))])
  }
  return out
}

export const formatRanges = (ranges: Ranges): string => (ranges.length ? `{[${ranges.map(([low, high]) => `${low},${high}`).join('],[')}]}` : '{}')

export interface ChainState {
  seq: number | null
  events: Ranges
  cleared: Ranges
  history: Ranges
}

export interface ChainStep {
  state: ChainState
  /** chain_seq went up (or started). */
  moved: boolean
  /** Something arrived above chain_seq: a hole below it. */
  pending: boolean
}

/** Adds a batch's spans to a site's chain and moves chain_seq as far as they cover. */
export function advanceChain(state: ChainState, spans: SiteSpans | undefined): ChainStep {
  const from = state.seq ?? spans?.firstPrev ?? null
  if (from === null) return { state: { seq: null, events: [], cleared: [], history: [] }, moved: false, pending: false }
  const events = union(state.events, normalize(spans?.events ?? []))
  const cleared = union(state.cleared, normalize(spans?.cleared ?? []))
  const history = union(state.history, normalize(spans?.history ?? []))
  // Whole: every span that arrived, less the clearings still without their summary.
  const whole = minus(events, minus(cleared, history))
  const reach = whole.find(([low, high]) => low <= from + 1 && high >= from + 1)
  const seq = reach ? reach[1] : from
  const next = { seq, events: above(events, seq), cleared: above(cleared, seq), history: above(history, seq) }
  return { state: next, moved: state.seq === null || seq > state.seq, pending: next.events.length > 0 || next.history.length > 0 }
}

export interface StoredChain {
  site_id: string
  chain_seq: number | string | null
  chain_events: string
  chain_cleared: string
  chain_history: string
}

/** The columns of hq_site_chains advanceChain reads. */
export const chainColumns = 'chain_seq, chain_events, chain_cleared, chain_history'

export function storedState(row: StoredChain): ChainState {
  return {
    seq: row.chain_seq === null ? null : Number(row.chain_seq),
    events: parseRanges(row.chain_events),
    cleared: parseRanges(row.chain_cleared),
    history: parseRanges(row.chain_history),
  }
}

function chainParams(steps: ChainStep[]): unknown[] {
  return [
    steps.map((step) => step.state.seq),
    steps.map((step) => formatRanges(step.state.events)),
    steps.map((step) => formatRanges(step.state.cleared)),
    steps.map((step) => formatRanges(step.state.history)),
    steps.map((step) => step.moved),
    steps.map((step) => step.pending),
  ]
}

/**
 * Adds spans to the stored chains of their sites and moves chain_seq up: hq_site_chains'
 * rows locked in site order. A site mapped to
 * undefined is walked again without new spans (a status saying more was published, or
 * chain_seq moved by replay.ts).
 */
export async function storeChains(tx: SqlClient, work: Map<string, SiteSpans | undefined>): Promise<void> {
  const sites = [...work.keys()].sort()
  if (!sites.length) return
  await tx.query('INSERT INTO hq_site_chains (site_id) SELECT unnest($1::text[]) ORDER BY 1 ON CONFLICT (site_id) DO NOTHING', [sites])
  const { rows } = await tx.query<StoredChain>(
    `SELECT site_id, ${chainColumns} FROM hq_site_chains WHERE site_id = ANY($1::text[]) ORDER BY site_id FOR UPDATE`,
    [sites],
  )
  const steps = rows.map((row) => advanceChain(storedState(row), work.get(row.site_id)))
  // A hole is something above chain_seq, or a status saying more was published (hq_sites,
  // read without a lock: a status committed meanwhile is seen at the next store); gap_since
  // is timed from the last time chain_seq moved (an instance merely behind keeps it moving,
  // a hole does not).
  await tx.query(
    `UPDATE hq_site_chains AS c SET chain_seq = n.chain_seq,
       chain_events = n.chain_events, chain_cleared = n.chain_cleared, chain_history = n.chain_history,
       gap_since = CASE WHEN n.chain_seq IS NULL OR (NOT n.pending AND COALESCE(n.last_published_seq, 0) <= n.chain_seq) THEN NULL
                        WHEN c.gap_since IS NULL OR n.moved THEN now() ELSE c.gap_since END
     FROM (SELECT n.*, s.last_published_seq
           FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::boolean[], $7::boolean[])
             AS n(site_id, chain_seq, chain_events, chain_cleared, chain_history, moved, pending)
           LEFT JOIN hq_sites s ON s.site_id = n.site_id) n
     WHERE c.site_id = n.site_id`,
    [rows.map((row) => row.site_id), ...chainParams(steps)],
  )
}

/** What an instance committed and has not stored in the chains yet: per site, its spans merged. */
export class PendingChains {
  #work = new Map<string, SiteSpans | undefined>()

  get size(): number {
    return this.#work.size
  }

  /** A committed batch: its spans, and the sites whose status came (they are walked too). */
  add(messages: SiteMessage[]): void {
    for (const message of messages) if (message.kind === 'status' && !this.#work.has(message.siteId)) this.#work.set(message.siteId, undefined)
    for (const [site, spans] of batchSpans(messages)) this.#merge(site, spans)
  }

  /** Everything pending, leaving none (put it back with restore() if storing fails). */
  take(): Map<string, SiteSpans | undefined> {
    const work = this.#work
    this.#work = new Map()
    return work
  }

  restore(work: Map<string, SiteSpans | undefined>): void {
    for (const [site, spans] of work) {
      if (spans) this.#merge(site, spans)
      else if (!this.#work.has(site)) this.#work.set(site, undefined)
    }
  }

  #merge(site: string, spans: SiteSpans): void {
    const kept = this.#work.get(site)
    if (!kept) {
      this.#work.set(site, {
        events: normalize(spans.events),
        cleared: normalize(spans.cleared),
        history: normalize(spans.history),
        firstPrev: spans.firstPrev,
      })
      return
    }
    kept.events = union(kept.events, normalize(spans.events))
    kept.cleared = union(kept.cleared, normalize(spans.cleared))
    kept.history = union(kept.history, normalize(spans.history))
    if (spans.firstPrev !== null) kept.firstPrev = kept.firstPrev === null ? spans.firstPrev : Math.min(kept.firstPrev, spans.firstPrev)
  }
}
