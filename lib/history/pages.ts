// History pages as GET /api/v1|v2/orders answer them, presented once and reused. A page read
// as of a position is fixed for good: positions only grow, so later summaries never enter
// it. The key is therefore the request as resolved (filters, offset, limit, the position
// it is read at) plus the timezone its times are shown in; nothing needs invalidating, and
// a poll of the first page only costs a fresh read of the newest position. Kitchen displays
// and point-of-sale screens poll the same page over and over.
import { orderSummary } from '../api/present.ts'
import { RawJson } from '../api/raw-json.ts'
import type { HistoryFilter, PageRequest } from './query.ts'
import type { HistoryStore } from './store.ts'

export interface PresentedPage {
  count: number
  asOf: number
  items: RawJson
}

/** Memory for kept pages (config storage.historyPageCacheBytes). */
const defaultBudget = 4_000_000

/**
 * What a kept page costs: its JSON (one byte a character, as V8 keeps ASCII text) three
 * times, since the answer framed around it is kept as well, as text and as bytes
 * (RawJson.framed).
 */
function costOf(page: PresentedPage): number {
  return page.items.text.length * 3
}

interface Kept {
  page: PresentedPage
  /** When it was last asked for, in the cache's own count of lookups. */
  usedAt: number
}

export class HistoryPages {
  readonly #history: Pick<HistoryStore, 'list' | 'highWater'>
  readonly #budget: number
  readonly #pages = new Map<string, Kept>()
  #size = 0
  #lookups = 0

  constructor(history: Pick<HistoryStore, 'list' | 'highWater'>, budget = defaultBudget) {
    this.#history = history
    this.#budget = budget
  }

  presented(filter: HistoryFilter, page: PageRequest, timezone: string): PresentedPage {
    const highWater = this.#history.highWater()
    const asOf = page.asOf === undefined ? highWater : Math.min(page.asOf, highWater)
    const key = JSON.stringify([timezone, asOf, page.offset, page.limit, filter.createdAfter, filter.createdBefore, filter.orderType, filter.locationName])
    const kept = this.#pages.get(key)
    if (kept) {
      // Marked, not moved to the end of the Map: deleting and re-adding on every hit made
      // V8 rebuild the Map's table over and over, and under an even load that garbage
      // brought a full collection every few seconds (docs/performance.md).
      kept.usedAt = ++this.#lookups
      return kept.page
    }
    const result = this.#history.list(filter, { ...page, asOf })
    const presented = { count: result.count, asOf: result.asOf, items: new RawJson(JSON.stringify(result.items.map((summary) => orderSummary(summary, timezone)))) }
    this.#remember(key, presented)
    return presented
  }

  #remember(key: string, page: PresentedPage): void {
    if (this.#budget === 0) return
    this.#pages.set(key, { page, usedAt: ++this.#lookups })
    this.#size += costOf(page)
    // Evicting happens only on a miss, which has just cost a query: a scan is cheap beside it.
    while (this.#size > this.#budget && this.#pages.size > 1) {
      let oldest: string | undefined
      let oldestAt = Infinity
      for (const [candidate, { usedAt }] of this.#pages) {
        if (candidate !== key && usedAt < oldestAt) {
          oldest = candidate
          oldestAt = usedAt
        }
      }
      const evicted = this.#pages.get(oldest!)!
      this.#pages.delete(oldest!)
      this.#size -= costOf(evicted.page)
    }
  }
}
