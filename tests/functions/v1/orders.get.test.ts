import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'
import { summary, uuidOf } from '../../lib/history/fixtures.ts'

const at = (iso: string) => Date.parse(iso)

async function gateway(timezone = 'UTC') {
  const gw = await testGateway()
  await gw.services.settings.update({ timezone })
  gw.services.history.insertMany([
    summary(1, { orderStarted: at('2026-11-22T08:00:00Z'), orderType: 'TO_GO', locationName: 4 }),
    summary(2, { orderStarted: at('2026-11-22T09:00:00Z'), orderType: 'ON_PREMISE', locationName: 4 }),
    summary(3, { orderStarted: at('2026-11-22T10:00:00Z'), orderType: 'ON_PREMISE', locationName: null }),
  ])
  return { gw, get: (query = '') => gw.json(`GET /api/v1/orders${query}`) }
}

const uuids = (body: { items: { uuid: string }[] }) => body.items.map((s) => s.uuid)

t.test('v1 list: no token, no returnCode, count a string, summaries with the UTC offset', async (t) => {
  const { get } = await gateway('-05:00')
  const { status, body } = await get()
  t.equal(status, 200)
  t.notOk('returnCode' in body)
  t.equal(body.count, '3')
  t.same(uuids(body), [uuidOf(3), uuidOf(2), uuidOf(1)])
  t.match(body.items[0], { type: 'ORDER_SUMMARY', orderStarted: '2026-11-22T05:00:00-05:00', locationName: null, orderLocated: null })
  t.match(body.items[2], { orderType: 'TO_GO', locationName: '4' })
})

t.test('v1 dates: the space form, the T form and a trailing offset', async (t) => {
  const { get } = await gateway('+01:00')
  const space = await get('?created_after=2026-11-22%2010:00:00')
  t.same(uuids(space.body), [uuidOf(3), uuidOf(2)], 'space form, in the gateway timezone (09:00Z = 10:00+01:00)')
  const tForm = await get('?created_after=2026-11-22T10:00:00&created_before=2026-11-22T11:00:00')
  t.same(uuids(tForm.body), [uuidOf(2)], 'T form')
  const zulu = await get('?created_after=2026-11-22%2009:00:00Z')
  t.same(uuids(zulu.body), [uuidOf(3), uuidOf(2)], 'Z names UTC whatever the gateway timezone')
  const offset = await get('?created_before=2026-11-22T11:00:00%2B02:00')
  t.same(uuids(offset.body), [uuidOf(1)], '+02:00 offset (09:00Z, exclusive)')
})

t.test('v1 filters: order_type (ON_PREMISES too) and location_name', async (t) => {
  const { get } = await gateway()
  t.same(uuids((await get('?order_type=ON_PREMISES')).body), [uuidOf(3), uuidOf(2)])
  t.same(uuids((await get('?order_type=TO_GO&location_name=4')).body), [uuidOf(1)])
  t.same(uuids((await get('?limit=1&offset=1')).body), [uuidOf(2)])
})

t.test('v1 errors: 400 {status, message}, 412 above 100, one message per bad date parameter', async (t) => {
  const { get } = await gateway()
  const cases: [string, number, RegExp][] = [
    ['limit=0', 400, /limit must be a positive integer/],
    ['limit=x', 400, /limit must be a positive integer/],
    ['limit=101', 412, /limit must not be above 100/],
    ['offset=-2', 400, /offset/],
    ['created_after=yesterday', 400, /created_after must be YYYY-MM-DD HH:MM:SS/],
    ['created_before=2026-13-01%2000:00:00', 400, /created_before must be YYYY-MM-DD HH:MM:SS/],
    ['order_type=DINE_IN', 400, /TO_GO or ON_PREMISES/],
    ['location_name=1.5', 400, /Location name must be a positive integer/],
    ['as_of=-1', 400, /as_of/],
  ]
  for (const [query, status, message] of cases) {
    const { status: got, body } = await get(`?${query}`)
    t.equal(got, status, query)
    t.same(Object.keys(body).sort(), ['message', 'status'], `${query}: no returnCode`)
    t.equal(body.status, status)
    t.match(body.message, message, query)
  }
  const after = await get('?created_after=bad')
  const before = await get('?created_before=bad')
  t.not(after.body.message, before.body.message, 'each date parameter has its own message')
})
