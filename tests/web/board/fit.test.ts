import t from 'tap'
// @ts-expect-error: a plain browser ES module without types
import { chooseLayout, columnsFor, outOfView, overflowText, readDensity, saveDensity, straddling } from '../../../web/board/fit.js'

/**
 * Cards of `heights` (px, in board order) laid out in rows of `columns` at a size's scale:
 * each row as tall as its own tallest card, as the browser's grid does.
 */
function measured(heights: number[], scales: Record<string, number> = { large: 1, medium: 0.84, compact: 0.66 }, gap = 9) {
  return (size: string, columns: number) => {
    let total = 0
    for (let at = 0; at < heights.length; at += columns) total += Math.max(...heights.slice(at, at + columns)) * scales[size]! + (at ? gap : 0)
    return total
  }
}

t.test('the largest size at which every order fits, rows sized each by its own cards', async (t) => {
  // The pass: 1888 x 880 px for cards; cards 150 px at large, a few taller (paging, long names).
  const thirty = Array.from({ length: 30 }, () => 150)
  t.match(chooseLayout({ width: 1888, height: 880, gap: 9, preference: 'auto', contentHeight: measured(thirty) }), { size: 'large', columns: 6, fits: true })
  // 40 orders, three of them 200 px tall, all in the first row: sized by the tallest card
  // every row would be 168 px at medium (6 rows: 1053 px), sized per row it is 845 px.
  const forty = Array.from({ length: 40 }, (_, i) => (i < 3 ? 200 : 150))
  t.match(chooseLayout({ width: 1888, height: 880, gap: 9, preference: 'auto', contentHeight: measured(forty) }), { size: 'medium', columns: 7, fits: true })
  t.match(
    chooseLayout({ width: 1888, height: 880, gap: 9, preference: 'auto', contentHeight: measured(Array.from({ length: 100 }, () => 150)) }),
    { size: 'compact', columns: 9, fits: false },
    'nothing fits: the smallest',
  )
  t.equal(chooseLayout({ width: 1888, height: 880, gap: 9, preference: 'large', contentHeight: measured(forty) }).size, 'large', 'a fixed density is kept')
  t.equal(columnsFor('large', 300, 9), 1, 'at least one column')
})

t.test('the row cut by the fold is pushed below it', async (t) => {
  const boxes = [
    { top: 0, bottom: 100 },
    { top: 0, bottom: 90 },
    { top: 110, bottom: 210 },
    { top: 110, bottom: 190 },
    { top: 220, bottom: 320 },
  ]
  t.same(straddling(boxes, 200), [2, 3], 'the whole row, also its card that ends above the fold')
  t.same(straddling(boxes, 215), [], 'the fold between rows: nothing to push')
})

t.test('what is out of view, and the bar that says so', async (t) => {
  const boxes = [
    { top: -100, bottom: -10, label: '#1' },
    { top: 100, bottom: 200, label: 'table 4' },
    { top: 700, bottom: 820, label: 'table 9' },
    { top: 900, bottom: 1000, label: '#12' },
  ]
  const hidden = outOfView(boxes, 60, 740)
  t.same(hidden, { above: ['#1'], below: ['table 9', '#12'] })
  t.equal(overflowText(hidden), '1 more order above ↑ (#1) · 2 more orders below ↓ (table 9, #12)')
  t.equal(overflowText({ above: [], below: [] }), '')
  t.equal(overflowText(hidden, 0), '1 more order above ↑ · 2 more orders below ↓', 'a phone names none')
  t.equal(overflowText({ above: [], below: ['1', '2', '3', '4', '5', '6', '7'] }), '7 more orders below ↓ (1, 2, 3, 4, 5, 6 …)')
})

t.test('the density is kept per screen', async (t) => {
  const values = new Map<string, string>()
  const storage = { getItem: (key: string) => values.get(key) ?? null, setItem: (key: string, value: string) => void values.set(key, value) }
  t.equal(readDensity(storage), 'auto')
  saveDensity('compact', storage)
  t.equal(readDensity(storage), 'compact')
  t.throws(() => saveDensity('huge', storage))
  values.set('trackerGateway.density', 'huge')
  t.equal(readDensity(storage), 'auto', 'an unknown stored value reads as auto')
})
