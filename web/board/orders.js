// The board's view of the active orders, keyed by UUID (an order number can come back after
// it is cleared, as a new order). Start times are kept in the browser's clock, derived from
// elapsedTime, so the timers are right whatever the gateway's timezone.
export class OrderBoard {
  #orders = new Map()

  /** Replaces everything with the feed's snapshot. */
  replace(items, now = Date.now()) {
    this.#orders.clear()
    for (const item of items) this.#orders.set(item.uuid, this.#withStart(item, now))
  }

  /** Applies one change frame (or an API answer); returns false for a stale frame. */
  apply(order, now = Date.now()) {
    const known = this.#orders.get(order.uuid)
    if (known && typeof known.seq === 'number' && typeof order.seq === 'number' && order.seq <= known.seq) return false
    if (order.type === 'ORDER_CLEARED' || order.state === 'cleared') {
      this.#orders.delete(order.uuid)
    } else {
      // An API answer has no seq: keep the last one seen, so older frames stay stale.
      this.#orders.set(order.uuid, { ...this.#withStart(order, now), seq: order.seq ?? known?.seq })
    }
    return true
  }

  /** Changes a few fields of a known order (an answer that carries no order). */
  patch(uuid, fields) {
    const known = this.#orders.get(uuid)
    if (known) this.#orders.set(uuid, { ...known, ...fields })
  }

  remove(uuid) {
    this.#orders.delete(uuid)
  }

  /** Oldest first: the order waiting longest is the first a runner sees. */
  list() {
    return [...this.#orders.values()].sort((a, b) => a.startedAt - b.startedAt || Number(a.name) - Number(b.name))
  }

  get size() {
    return this.#orders.size
  }

  #withStart(order, now) {
    const elapsed = Number.isFinite(order.elapsedTime) ? order.elapsedTime : 0
    const { type: _frameType, ...fields } = order
    return { ...fields, startedAt: now - elapsed * 1000 }
  }
}

/** Twice the target: the second late stage, so a long wait stands out among the late ones. */
export const criticalFactor = 2

/** green below 75 % of the target, amber up to the target, red beyond it, critical from twice it. */
export function levelOf(elapsedSeconds, targetSeconds) {
  if (elapsedSeconds >= targetSeconds * criticalFactor) return 'critical'
  if (elapsedSeconds >= targetSeconds) return 'red'
  if (elapsedSeconds >= targetSeconds * 0.75) return 'amber'
  return 'green'
}

/** 75 → "1:15", 3725 → "1:02:05". */
export function formatDuration(totalSeconds) {
  const s = Math.max(0, Math.floor(totalSeconds))
  const hours = Math.floor(s / 3600)
  const minutes = Math.floor((s % 3600) / 60)
  const seconds = String(s % 60).padStart(2, '0')
  return hours ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`
}

export const isLate = (level) => level === 'red' || level === 'critical'

/** Active orders at or beyond the target: late now, not yet in today's cleared figures. */
export function lateNow(orders, now, targetSeconds) {
  return orders.filter((order) => isLate(levelOf((now - order.startedAt) / 1000, targetSeconds))).length
}
