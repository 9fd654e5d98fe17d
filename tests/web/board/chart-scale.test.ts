import t from 'tap'
// @ts-expect-error: a plain browser ES module without types
import { hourWindow, niceMax } from '../../../web/board/chart-scale.js'

const hours = (busy: Record<number, number>) => Array.from({ length: 24 }, (_, hour) => ({ hour, orders: busy[hour] ?? 0 }))

t.test('the hours drawn: those with orders, at least six', async (t) => {
  t.same(
    hourWindow(hours({ 12: 3, 13: 1 })).map((h: { hour: number }) => h.hour),
    [10, 11, 12, 13, 14, 15],
    'widened on both sides',
  )
  t.same(
    hourWindow(hours({ 8: 1, 21: 1 })).map((h: { hour: number }) => h.hour),
    [8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21],
  )
  t.same(
    hourWindow(hours({})).map((h: { hour: number }) => h.hour),
    [11, 12, 13, 14, 15, 16],
    'lunch when there is nothing yet',
  )
  t.same(
    hourWindow(hours({ 0: 1 })).map((h: { hour: number }) => h.hour),
    [0, 1, 2, 3, 4, 5],
  )
  t.same(
    hourWindow(hours({ 23: 1 })).map((h: { hour: number }) => h.hour),
    [18, 19, 20, 21, 22, 23],
  )
})

t.test('niceMax rounds up to 1, 2 or 5 times a power of ten', async (t) => {
  t.same([0, 1, 3, 10, 11, 26, 480, 1000].map(niceMax), [1, 1, 5, 10, 20, 50, 500, 1000])
})
