import t from 'tap'
// @ts-expect-error: a plain browser ES module without types
import { afterBump, keepSelection } from '../../../web/board/selection.js'

t.test('the selection stays on its card, or moves to the next one when its card leaves', async (t) => {
  t.equal(keepSelection(['a', 'b', 'c'], ['a', 'b', 'c', 'd'], 'b'), 'b', 'a new order changes nothing')
  t.equal(keepSelection(['a', 'b', 'c'], ['b', 'c'], 'b'), 'b', 'an order before it cleared elsewhere')
  t.equal(keepSelection(['a', 'b', 'c'], ['a', 'c'], 'b'), 'c', 'its own card cleared: the next one')
  t.equal(keepSelection(['a', 'b', 'c'], ['a', 'b'], 'c'), 'b', 'the last card cleared: the one before')
  t.equal(keepSelection(['a', 'b', 'c'], ['x'], 'b'), 'x', 'all gone: the first card shown')
  t.equal(keepSelection([], ['x', 'y'], null), 'x', 'nothing selected and cards arrive: the first')
  t.equal(keepSelection(['a'], [], 'a'), null, 'no cards, no selection')
})

t.test('after a bump the next card still waiting is selected', async (t) => {
  const pending = (uuid: string) => uuid === 'c'
  t.equal(afterBump(['a', 'b', 'c', 'd'], 'b', pending), 'd', 'skips a card being cleared')
  t.equal(afterBump(['a', 'b', 'c'], 'b', pending), 'a', 'none after: the one before')
  t.equal(afterBump(['b', 'c'], 'b', pending), 'b', 'the only waiting card: it stays')
})
