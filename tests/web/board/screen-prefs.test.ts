import t from 'tap'
// @ts-expect-error: a plain browser ES module without types
import { clockTime, defaultPrefs, readPrefs, savePrefs, showsOrder } from '../../../web/board/screen-prefs.js'

function memoryStorage(initial: Record<string, string> = {}) {
  const items = new Map(Object.entries(initial))
  return { getItem: (key: string) => items.get(key) ?? null, setItem: (key: string, value: string) => void items.set(key, value) }
}

t.test("the browser's copy: kept, and what this version does not know falls back to the default", async (t) => {
  const storage = memoryStorage()
  t.same(readPrefs(storage), defaultPrefs, 'nothing kept: the defaults')
  savePrefs({ filter: 'to-go', theme: 'light', hours: '12', language: 'de' }, storage)
  t.same(readPrefs(storage), { filter: 'to-go', theme: 'light', hours: '12', language: 'de' })
  const odd = memoryStorage({ 'trackerGateway.screen': JSON.stringify({ filter: 'late', theme: 'light', language: 'fr' }) })
  t.same(readPrefs(odd), { ...defaultPrefs, theme: 'light' }, 'unknown values: their defaults')
  t.same(readPrefs(memoryStorage({ 'trackerGateway.screen': '{not json' })), defaultPrefs, 'not JSON: the defaults')
  t.equal(readPrefs(memoryStorage({ 'trackerGateway.screen': JSON.stringify({ filter: 'area:Terrace' }) })).filter, 'area:Terrace', 'an area filter is kept')
  t.equal(readPrefs(memoryStorage({ 'trackerGateway.screen': JSON.stringify({ filter: 'area: Terrace' }) })).filter, 'all', 'a padded name is not')
})

t.test('filters: only to go, only dine-in (every order not to go), or all', async (t) => {
  const togo = { orderType: 'TO_GO' }
  const dineIn = { orderType: 'ON_PREMISE' }
  t.same([showsOrder('all', togo), showsOrder('all', dineIn)], [true, true])
  t.same([showsOrder('to-go', togo), showsOrder('to-go', dineIn)], [true, false])
  t.same([showsOrder('dine-in', togo), showsOrder('dine-in', dineIn)], [false, true])
})

t.test('an area filter shows only the orders at tables of that area; an order at no table is not shown', async (t) => {
  const areaOf = (order: { locationName?: string }) => ({ '1': 'Terrace', '2': 'Bar' })[order.locationName ?? '']
  const at = (locationName: string) => ({ orderType: 'ON_PREMISE', locationName })
  t.same(
    [at('1'), at('2'), at(''), at('9')].map((order) => showsOrder('area:Terrace', order, areaOf)),
    [true, false, false, false],
  )
  t.equal(showsOrder('area:Terrace', at('1')), false, 'no floor plan: nothing is known to be there')
})

t.test("clock times in the screen's hour form and language (Intl)", async (t) => {
  const at = new Date(2026, 10, 22, 14, 5).getTime()
  t.equal(clockTime(at, { hours: '24', language: 'en' }), '14:05')
  t.match(clockTime(at, { hours: '12', language: 'en' }), /^2:05\s?PM$/)
  t.equal(clockTime(at, { hours: '24', language: 'de' }), '14:05')
})
