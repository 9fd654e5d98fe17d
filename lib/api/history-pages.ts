// History pages as GET /api/v1|v2/orders answer them, presented once and reused. A page read
// as of a position is fixed for good: positions only grow, so later summaries never enter
// it. The key is therefore the request as resolved (filters, offset, limit, the position
// it is read at) plus the timezone its times are shown in; nothing needs invalidating, and
// a poll of the first page only costs a fresh read of the newest position. Kitchen displays
// and point-of-sale screens poll the same page over and over.
import { orderSummary } from './present-order.ts'
import { RawJson } from './raw-json.ts'
import type { PresentedPage } from './wire-types.ts'
import type { HistoryFilter, PageRequest } from '../history/query.ts'
import type { HistoryStore } from '../history/store.ts'

export type { PresentedPage } from './wire-types.ts'

/** Memory for kept pages (config storage.historyPageCacheBytes). */
const defaultBudget = 4_000_000

/** About what the objects around a kept page take besides its text (entry, page, RawJson). */
const entryOverhead = 200

/**
 * What a kept page costs: its key, and its JSON (one byte a character, as V8 keeps ASCII
 * text) three times, since the answer framed around it is kept as well, as text and as
 * bytes (RawJson.framed). Counting the key and the overhead bounds how many empty pages a
 * stream of different filters can leave behind.
 */
function costOf(key: string, page: PresentedPage): number {
  return entryOverhead + key.length + page.items.text.length * 3
}

interface Kept {
  page: PresentedPage
  /** Asked for again since it was kept, or since eviction last passed it. */
  used: boolean
}

export class HistoryPages {
  readonly #history: Pick<HistoryStore, 'list' | 'highWater'>
  readonly #budget: number
  /** In the order eviction passes them: oldest first. */
  readonly #pages = new Map<string, Kept>()
  #size = 0
  /** The parts of the last key and the key: a poll asks for the same page again and again. */
  #lastParts: unknown[] = []
  #lastKey = ''

  constructor(history: Pick<HistoryStore, 'list' | 'highWater'>, budget = defaultBudget) {
    this.#history = history
    this.#budget = budget
  }

  presented(filter: HistoryFilter, page: PageRequest, timezone: string): PresentedPage {
    const highWater = this.#history.highWater()
    const asOf = page.asOf === undefined ? highWater : Math.min(page.asOf, highWater)
    const key = this.#keyOf([timezone, asOf, page.offset, page.limit, filter.createdAfter, filter.createdBefore, filter.orderType, filter.locationName])
    const kept = this.#pages.get(key)
    if (kept) {
      // Marked, not moved to the end of the Map: deleting and re-adding on every hit made
      // V8 rebuild the Map's table over and over, and under an even load that garbage
      // brought a full collection every few seconds (docs/decisions/0005-history-in-node-sqlite.md).
      kept.used = true
      return kept.page
    }
    const result = this.#history.list(filter, { ...page, asOf })
    const presented = {
      count: result.count,
      asOf: result.asOf,
      items: new RawJson(JSON.stringify(result.items.map((summary) => orderSummary(summary, timezone)))),
    }
    this.#remember(key, presented)
    return presented
  }

  /** The page's key, the last one again when its parts are (building and hashing it cost per request: issue 30). */
  #keyOf(parts: unknown[]): string {
    const last = this.#lastParts
    if (parts.length === last.length && parts.every((part, index) => part === last[index])) return this.#lastKey
    this.#lastParts = parts
    this.#lastKey = JSON.stringify(parts)
    return this.#lastKey
  }

  /** Times in history were moved (a clock step mended): no kept page is true any more. */
  forget(): void {
    this.#pages.clear()
    this.#size = 0
  }

  /**
   * Least recently used first, approximately ("second chance"): from the oldest, a page asked
   * for since it was last passed is moved to the end and spared once; the first that was not
   * goes. Only a miss gets here, and each step evicts or clears a mark, so it is short.
   */
  #remember(key: string, page: PresentedPage): void {
    if (this.#budget === 0) return
    const cost = costOf(key, page)
    while (this.#size + cost > this.#budget && this.#pages.size > 0) {
      const [oldest, kept] = this.#pages.entries().next().value!
      this.#pages.delete(oldest)
      if (kept.used) {
        kept.used = false
        this.#pages.set(oldest, kept)
      } else {
        this.#size -= costOf(oldest, kept.page)
      }
    }
    // A page larger than the whole budget is still kept, alone, until the next one.
    this.#pages.set(key, { page, used: false })
    this.#size += cost
  }
}
