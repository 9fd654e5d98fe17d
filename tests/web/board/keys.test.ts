import t from 'tap'
// @ts-expect-error: a plain browser ES module without types
import { commandFor, moveIndex } from '../../../web/board/keys.js'

const key = (k: string, extra: Record<string, boolean> = {}) => ({ key: k, ctrlKey: false, altKey: false, metaKey: false, ...extra })

t.test('the bump bar key map', async (t) => {
  t.same(commandFor(key('3'), null), { type: 'position', position: 3 })
  t.same(commandFor(key('0'), null), { type: 'position', position: 10 })
  t.same(commandFor(key('#'), null), { type: 'start-number' })
  t.same(commandFor(key('1'), ''), { type: 'digit', digit: '1' }, 'digits after # type a number')
  t.same(commandFor(key('Enter'), '12'), { type: 'number', number: '12' })
  t.same(commandFor(key('Backspace'), '12'), { type: 'digit-back' })
  t.same(commandFor(key('x'), '12'), { type: 'cancel-number' })
  t.same(commandFor(key('b'), null), { type: 'act', action: 'clear' })
  t.same(commandFor(key('Delete'), null), { type: 'act', action: 'clear' })
  t.same(commandFor(key('p'), null), { type: 'act', action: 'page' })
  t.same(commandFor(key('u'), null), { type: 'undo' })
  t.same(commandFor(key('z', { ctrlKey: true }), null), { type: 'undo' })
  t.equal(commandFor(key('c', { ctrlKey: true }), null), null, 'copy stays copy')
  t.equal(commandFor(key('3', { altKey: true }), null), null)
  t.same(commandFor(key('ArrowDown'), null), { type: 'move', by: 'row' })
  t.same(commandFor(key('ArrowUp'), null), { type: 'move', by: '-row' })
  t.same(commandFor(key('ArrowLeft'), null), { type: 'move', by: -1 })
  t.same(commandFor(key('ArrowRight'), null), { type: 'move', by: 1 })
  t.same(commandFor(key('Home'), null), { type: 'first' })
  t.same(commandFor(key('End'), null), { type: 'last' })
  t.same(commandFor(key('PageDown'), null), { type: 'page', by: 1 })
  t.same(commandFor(key('PageUp'), null), { type: 'page', by: -1 })
  t.same(commandFor(key('Escape'), null), { type: 'escape' })
  t.equal(commandFor(key('q'), null), null)
})

t.test('moving the selection stays on the board', async (t) => {
  t.equal(moveIndex(-1, 1, 10, 4), 0, 'nothing selected: the first card')
  t.equal(moveIndex(2, 'row', 10, 4), 6)
  t.equal(moveIndex(8, 'row', 10, 4), 8, 'no row below: stays')
  t.equal(moveIndex(5, '-row', 10, 4), 1)
  t.equal(moveIndex(0, -1, 10, 4), 0)
  t.equal(moveIndex(0, 1, 0, 4), -1, 'no cards')
})
