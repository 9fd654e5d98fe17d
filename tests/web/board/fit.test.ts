import t from 'tap'
// @ts-expect-error: a plain browser ES module without types
import { chooseLayout, columnsFor, outOfView, overflowText, readDensity, saveDensity } from '../../../web/board/fit.js'

const heights: Record<string, number> = { large: 150, medium: 130, compact: 116 }
const cardHeight = (size: string) => heights[size]!

t.test('the largest size at which every order fits, else the one that shows the most', async (t) => {
  // The pass: 1888 x 880 px for cards.
  t.match(chooseLayout({ count: 30, width: 1888, height: 880, gap: 9, preference: 'auto', cardHeight }), { size: 'large', columns: 6, capacity: 30 })
  t.match(chooseLayout({ count: 31, width: 1888, height: 880, gap: 9, preference: 'auto', cardHeight }), { size: 'medium', columns: 7, capacity: 42 })
  t.match(chooseLayout({ count: 45, width: 1888, height: 880, gap: 9, preference: 'auto', cardHeight }), { size: 'compact', columns: 9, capacity: 63 })
  // Short and wide (1366 x 768): height decides, not only width.
  const tv = chooseLayout({ count: 31, width: 1334, height: 642, gap: 9, preference: 'auto', cardHeight })
  t.match(tv, { size: 'compact', columns: 6, capacity: 30 }, 'cannot fit 31: the most it can show')
  t.equal(chooseLayout({ count: 40, width: 1888, height: 880, gap: 9, preference: 'large', cardHeight }).size, 'large', 'a fixed density is kept')
  t.equal(columnsFor('large', 300, 9), 1, 'at least one column')
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
