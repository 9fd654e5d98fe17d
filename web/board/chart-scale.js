// The charts' scales, apart from drawing so they are tested without a browser.

/** The hours worth drawing: those with orders, widened to at least six (11-16 when empty). */
export function hourWindow(hours) {
  const busy = hours.filter((h) => h.orders > 0).map((h) => h.hour)
  let first = busy.length ? Math.min(...busy) : 11
  let last = busy.length ? Math.max(...busy) : 16
  while (last - first < 5) {
    if (first > 0) first -= 1
    if (last - first < 5 && last < 23) last += 1
  }
  return hours.filter((h) => h.hour >= first && h.hour <= last)
}

/** The smallest 1, 2 or 5 times a power of ten at or above `value` (1 at least). */
export function niceMax(value) {
  if (!(value > 1)) return 1
  const power = 10 ** Math.floor(Math.log10(value))
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power
  return 10 * power
}
