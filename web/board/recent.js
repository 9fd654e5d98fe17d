// Orders cleared in the last minutes, by any screen or on the clearing unit, so a runner can
// see what happened. Filled from the history on load (GET /api/v2/orders, newest first) and
// from the feed's ORDER_CLEARED frames. "This screen" marks clears this browser sent; the
// gateway does not say who else cleared (another screen, the API or the unit).
import { t } from './i18n.js'

export const recentWindowMs = 15 * 60_000
export const recentMax = 12

export class RecentClears {
  /** uuid → { uuid, name, orderType, table, clearedAt, here } */
  #entries = new Map()

  /** One cleared order; `here`: this screen sent the clear. Newer data for a uuid wins. */
  add({ uuid, name, orderType, table, clearedAt, here = false }) {
    const known = this.#entries.get(uuid)
    this.#entries.set(uuid, { uuid, name: String(name), orderType, table: table || null, clearedAt, here: here || Boolean(known?.here) })
  }

  /** From a history summary (v2 GET /api/v2/orders item). */
  addSummary(item) {
    const clearedAt = Date.parse(item.orderCleared)
    if (!Number.isFinite(clearedAt)) return
    this.add({ uuid: item.uuid, name: item.name, orderType: item.orderType, table: item.locationName, clearedAt })
  }

  /** Newest first, only those within the window. */
  list(now = Date.now()) {
    for (const [uuid, entry] of this.#entries) if (now - entry.clearedAt > recentWindowMs) this.#entries.delete(uuid)
    return [...this.#entries.values()].sort((a, b) => b.clearedAt - a.clearedAt).slice(0, recentMax)
  }

  /** The newest clear this screen sent (what "undo the last clear" recalls). */
  lastHere(now = Date.now()) {
    return this.list(now).find((entry) => entry.here) ?? null
  }

  remove(uuid) {
    this.#entries.delete(uuid)
  }
}

/** "Table 4", "To go", "No table": where the order was. */
export function whereText(entry) {
  if (entry.table) return t('whereTable', { table: entry.table })
  return t(entry.orderType === 'TO_GO' ? 'whereToGo' : 'whereNoTable')
}
