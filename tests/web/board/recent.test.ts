import t from 'tap'
// @ts-expect-error: a plain browser ES module without types
import { RecentClears, recentWindowMs, whereText } from '../../../web/board/recent.js'

t.test('cleared orders of the last minutes, newest first, from the history and the feed', async (t) => {
  const recent = new RecentClears()
  const now = Date.parse('2026-11-22T12:20:00Z')
  recent.addSummary({ uuid: 'u1', name: '5', orderType: 'TO_GO', locationName: null, orderCleared: '2026-11-22T12:01:10+00:00' })
  recent.addSummary({ uuid: 'old', name: '6', orderType: 'ON_PREMISE', locationName: 3, orderCleared: '2026-11-22T11:01:10+00:00' })
  recent.addSummary({ uuid: 'bad', name: '7', orderType: 'ON_PREMISE', locationName: 3, orderCleared: null })
  recent.add({ uuid: 'u2', name: 9, orderType: 'ON_PREMISE', table: 4, clearedAt: now - 1000, here: true })
  recent.add({ uuid: 'u1', name: 5, orderType: 'TO_GO', table: '', clearedAt: now - recentWindowMs + 1 })
  t.same(
    recent.list(now).map((entry: { uuid: string }) => entry.uuid),
    ['u2', 'u1'],
    'older than the window: gone',
  )
  t.equal(recent.lastHere(now).uuid, 'u2')
  recent.remove('u2')
  t.equal(recent.lastHere(now), null)
})

t.test('where it was', async (t) => {
  t.equal(whereText({ table: 4, orderType: 'ON_PREMISE' }), 'Table 4')
  t.equal(whereText({ table: null, orderType: 'TO_GO' }), 'To go')
  t.equal(whereText({ table: null, orderType: 'ON_PREMISE' }), 'No table')
})
