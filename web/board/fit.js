// How the order cards fill the screen. The layout is chosen by fit, not by width alone: the
// largest card size at which every active order fits the height left under the header, and
// as many columns as that size allows; when even the smallest size cannot show them all, the
// smallest is used and the overflow bar says how many are not shown and where. Each screen
// may fix its own density instead of "auto" (kept in its localStorage).
import { plural } from './i18n.js'

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
 * @param {{ width: number, height: number, gap: number, preference: string,
 *   contentHeight: (size: string, columns: number) => number, remPx?: number }} input
 *   contentHeight: how tall every card together is at that size and column count, measured by
 *   the caller with the rows as the browser sizes them (each row as tall as its own tallest
 *   card, not every row as tall as the tallest card of all)
 * @returns {{ size: string, columns: number, fits: boolean }}
 */
export function chooseLayout({ width, height, gap, preference, contentHeight, remPx = 16 }) {
  const candidates = preference === 'auto' ? order : [preference]
  for (const size of candidates) {
    const columns = columnsFor(size, width, gap, remPx)
    if (contentHeight(size, columns) <= height) return { size, columns, fits: true }
  }
  // Nothing fits: the smallest size shows the most; the overflow bar counts the rest.
  const size = candidates[candidates.length - 1]
  return { size, columns: columnsFor(size, width, gap, remPx), fits: false }
}

/**
 * The cards of the row that straddles the fold (the top of the overflow bar): they are pushed
 * below the screen, so no half-shown card has its buttons under the bar.
 * @param {Array<{ top: number, bottom: number }>} boxes in page order
 * @returns {number[]} the indexes of the cards to push down
 */
export function straddling(boxes, fold) {
  const first = boxes.findIndex((box) => box.top < fold && box.bottom > fold)
  if (first < 0) return []
  const rowTop = boxes[first].top
  return boxes.flatMap((box, index) => (Math.abs(box.top - rowTop) < 1 ? [index] : []))
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
  const part = (labels, where) => {
    if (!labels.length) return ''
    const named = names > 0 ? ` (${labels.slice(0, names).join(', ')}${labels.length > names ? ' …' : ''})` : ''
    return `${plural(where, labels.length)}${named}`
  }
  return [part(above, 'overflowAbove'), part(below, 'overflowBelow')].filter(Boolean).join(' · ')
}
