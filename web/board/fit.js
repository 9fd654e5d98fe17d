// How the order cards fill the screen. The layout is chosen by fit, not by width alone: the
// largest card size at which every active order fits the height left under the header, and
// as many columns as that size allows; when even the smallest size cannot show them all, the
// smallest is used and the overflow bar says how many are not shown and where. Each screen
// may fix its own density instead of "auto" (kept in its localStorage).
const storageKey = 'trackerGateway.density'
export const densities = ['auto', 'large', 'medium', 'compact']
/** Card font scale and the narrowest card (rem) of each size. */
export const sizes = {
  large: { scale: 1, minWidthRem: 17 },
  medium: { scale: 0.84, minWidthRem: 14.5 },
  compact: { scale: 0.66, minWidthRem: 12 },
}
const order = ['large', 'medium', 'compact']

export function readDensity(storage = localStorage) {
  const value = storage.getItem(storageKey)
  return densities.includes(value) ? value : 'auto'
}

export function saveDensity(value, storage = localStorage) {
  if (!densities.includes(value)) throw new Error(`not a density: ${value}`)
  storage.setItem(storageKey, value)
}

/** Columns of `size` in `width` px with `gap` px between cards (at least one). */
export function columnsFor(size, width, gap, remPx = 16) {
  return Math.max(1, Math.floor((width + gap) / (sizes[size].minWidthRem * remPx + gap)))
}

/**
 * @param {{ count: number, width: number, height: number, gap: number, preference: string,
 *   cardHeight: (size: string, columns: number) => number, remPx?: number }} input
 *   cardHeight: the tallest card at that size and column count (measured by the caller)
 * @returns {{ size: string, columns: number, capacity: number }}
 */
export function chooseLayout({ count, width, height, gap, preference, cardHeight, remPx = 16 }) {
  const candidates = preference === 'auto' ? order : [preference]
  let best = null
  for (const size of candidates) {
    const columns = columnsFor(size, width, gap, remPx)
    const rows = Math.max(1, Math.floor((height + gap) / (cardHeight(size, columns) + gap)))
    const layout = { size, columns, capacity: rows * columns }
    if (layout.capacity >= count) return layout
    if (!best || layout.capacity > best.capacity) best = layout
  }
  return best
}

/**
 * The cards outside the visible band [top, bottom] of the viewport: those above (scrolled
 * past) and below (under the fold). A card counts as shown when most of it is visible.
 * @param {Array<{ top: number, bottom: number, label: string }>} boxes
 */
export function outOfView(boxes, top, bottom) {
  const above = []
  const below = []
  for (const box of boxes) {
    const middle = (box.top + box.bottom) / 2
    if (middle < top) above.push(box.label)
    else if (middle > bottom) below.push(box.label)
  }
  return { above, below }
}

/**
 * "8 more orders below ↓ (#31, #32, #33 …)": what the overflow bar says, naming up to
 * `names` of them (a phone names none: it scrolls anyway); '' when all show.
 */
export function overflowText({ above, below }, names = 6) {
  const part = (labels, where, arrow) => {
    if (!labels.length) return ''
    const named = names > 0 ? ` (${labels.slice(0, names).join(', ')}${labels.length > names ? ' …' : ''})` : ''
    return `${labels.length} more ${labels.length === 1 ? 'order' : 'orders'} ${where} ${arrow}${named}`
  }
  return [part(above, 'above', '↑'), part(below, 'below', '↓')].filter(Boolean).join(' · ')
}
