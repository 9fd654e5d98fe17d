// Does headquarters have every change a site published? Seqs are not dense (a gateway
// reserves them in blocks and skips the rest of a block after a crash), so each fleet
// message names the change the site rendered before it (prevSeq): a change covers the span
// (prevSeq, seq], in which the site published nothing else. Per site, chain_seq is the
// point up to which every span arrived; the spans that arrived above it are kept as a
// PostgreSQL multirange (adjacent spans merge, so it stays a few ranges however they were
// spread over instances and batches), and chain_seq moves up as far as they cover without a
// hole. A clearing is whole only with its summary (two messages, events and history). Done
// in the transaction that applies the batch, under the site row's lock, so instances never
// race on it. What stays missing is asked of the site again (lib/hq/replay.ts).
import type { SqlClient } from '../store/postgres.ts'
import type { SiteMessage } from './messages.ts'

interface SiteSpans {
  events: string[]
  cleared: string[]
  history: string[]
  firstPrev: number | null
}

/**
 * The spans a batch brings, per site, as multirange literals. Messages of older gateways
 * (no prevSeq) are not followed; one whose prevSeq is not below its seq (a change the
 * gateway recorded out of its order, after a failure) is applied but not followed either.
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
      spans.events.push(`(${prev},${message.seq}]`)
      if (message.change === 'ORDER_CLEARED') spans.cleared.push(`[${message.seq},${message.seq}]`)
    } else spans.history.push(`[${message.seq},${message.seq}]`)
  }
  return bySite
}

const literal = (ranges: string[]) => `{${ranges.join(',')}}`

/**
 * Adds the batch's spans and moves each site's chain_seq up; `sites` are walked even without
 * spans (a status saying more was published, or chain_seq moved by replay.ts). The caller
 * holds the sites' rows locked (applyBatch locks them in site order).
 */
export async function advanceChains(tx: SqlClient, sites: string[], spans: Map<string, SiteSpans>): Promise<void> {
  if (!sites.length) return
  const sorted = [...sites].sort()
  await tx.query(
    `WITH n AS (
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[]) AS n(site_id, events, cleared, history, first_prev)
     ), joined AS (
       SELECT s.site_id, s.chain_seq AS old_seq, COALESCE(s.chain_seq, n.first_prev) AS from_seq,
              s.chain_events + n.events::int8multirange AS events,
              s.chain_cleared + n.cleared::int8multirange AS cleared,
              s.chain_history + n.history::int8multirange AS history
       FROM hq_sites s JOIN n USING (site_id)
     ), walked AS (
       -- Whole: every span that arrived, less the clearings still without their summary.
       SELECT j.*, COALESCE((SELECT upper(r) - 1 FROM unnest(j.events - (j.cleared - j.history)) r WHERE r @> j.from_seq + 1), j.from_seq) AS to_seq
       FROM joined j
     ), trimmed AS (
       SELECT w.site_id, w.old_seq, w.to_seq,
              w.events * int8multirange(int8range(w.to_seq + 1, NULL)) AS events,
              w.cleared * int8multirange(int8range(w.to_seq + 1, NULL)) AS cleared,
              w.history * int8multirange(int8range(w.to_seq + 1, NULL)) AS history
       FROM walked w
     )
     UPDATE hq_sites AS s SET chain_seq = t.to_seq,
       chain_events = CASE WHEN t.to_seq IS NULL THEN '{}' ELSE t.events END,
       chain_cleared = CASE WHEN t.to_seq IS NULL THEN '{}' ELSE t.cleared END,
       chain_history = CASE WHEN t.to_seq IS NULL THEN '{}' ELSE t.history END,
       -- Something is missing: a change above chain_seq arrived (or a summary without its
       -- change), or the status says more was published. Timed from the last time chain_seq
       -- moved: an instance merely behind keeps it moving, a real hole does not.
       gap_since = CASE WHEN t.to_seq IS NULL OR (isempty(t.events) AND isempty(t.history) AND COALESCE(s.last_published_seq, 0) <= t.to_seq) THEN NULL
                        WHEN s.gap_since IS NULL OR t.old_seq IS NULL OR t.to_seq > t.old_seq THEN now()
                        ELSE s.gap_since END
     FROM trimmed t WHERE s.site_id = t.site_id`,
    [
      sorted,
      sorted.map((site) => literal(spans.get(site)?.events ?? [])),
      sorted.map((site) => literal(spans.get(site)?.cleared ?? [])),
      sorted.map((site) => literal(spans.get(site)?.history ?? [])),
      sorted.map((site) => spans.get(site)?.firstPrev ?? null),
    ],
  )
}
