import t from 'tap'
import type { OrderSummary } from '../../../lib/orders/types.ts'
import { testGateway } from '../../helpers/gateway.ts'
import { summary, uuidOf } from '../../lib/history/fixtures.ts'

const at = (iso: string) => Date.parse(iso)

async function gatewayWith(summaries: OrderSummary[], timezone = 'UTC') {
  const gw = await testGateway()
  await gw.services.settings.update({ timezone })
  for (const s of summaries) gw.services.history.insert(s)
  const token = await gw.issueToken()
  const get = (query = '') => gw.json(`GET /api/v2/orders${query}`, { token })
  return { gw, token, get }
}

t.test('needs a bearer token', async (t) => {
  const gw = await testGateway()
  const { status, body } = await gw.json('GET /api/v2/orders')
  t.equal(status, 401)
  t.equal(body.returnCode, -2)
})

t.test('answers code 8, count as a string, summaries with the gateway UTC offset', async (t) => {
  const located = summary(1, {
    orderStarted: at('2026-11-22T10:00:00Z'),
    orderLocated: at('2026-11-22T10:01:30Z'),
    orderCleared: at('2026-11-22T10:07:00Z'),
    locationName: 12,
    orderType: 'TO_GO',
    name: 7,
  })
  const unlocated = summary(2, { orderStarted: at('2026-11-22T11:00:00Z'), locationName: null, orderType: 'ON_PREMISE' })
  const { get } = await gatewayWith([located, unlocated], 'Europe/Berlin')
  const { status, body } = await get()
  t.equal(status, 200)
  t.same(body, {
    status: 200,
    returnCode: 8,
    count: '2',
    asOf: '2',
    items: [
      {
        uuid: uuidOf(2),
        name: String(unlocated.name),
        type: 'ORDER_SUMMARY',
        orderType: 'ON_PREMISE',
        locationName: null,
        orderStarted: '2026-11-22T12:00:00+01:00',
        orderLocated: null,
        orderCleared: '2026-11-22T12:05:00+01:00',
      },
      {
        uuid: uuidOf(1),
        name: '7',
        type: 'ORDER_SUMMARY',
        orderType: 'TO_GO',
        locationName: '12',
        orderStarted: '2026-11-22T11:00:00+01:00',
        orderLocated: '2026-11-22T11:01:30+01:00',
        orderCleared: '2026-11-22T11:07:00+01:00',
      },
    ],
  })
})

t.test('limit defaults to 25 and offset to 0; count is the total matching, not the page', async (t) => {
  const { get } = await gatewayWith(Array.from({ length: 40 }, (_, i) => summary(i)))
  const first = await get()
  t.equal(first.body.items.length, 25)
  t.equal(first.body.count, '40')
  t.equal(first.body.items[0].uuid, uuidOf(39))
  const last = await get('?offset=30&limit=100')
  t.same(
    last.body.items.map((s: { uuid: string }) => s.uuid),
    Array.from({ length: 10 }, (_, i) => uuidOf(9 - i)),
  )
  t.equal(last.body.count, '40')
  const one = await get('?limit=1&offset=0')
  t.equal(one.body.items.length, 1)
  const leadingZeros = await get('?limit=007')
  t.equal(leadingZeros.body.items.length, 7)
})

t.test('created_after (inclusive) and created_before (exclusive) are read in the gateway timezone', async (t) => {
  const { get } = await gatewayWith(
    [
      summary(1, { orderStarted: at('2026-11-22T08:59:59Z') }),
      summary(2, { orderStarted: at('2026-11-22T09:00:00Z') }),
      summary(3, { orderStarted: at('2026-11-22T09:30:00Z') }),
      summary(4, { orderStarted: at('2026-11-22T10:00:00Z') }),
    ],
    '+02:00',
  )
  const { body } = await get('?created_after=2026-11-22T11:00:00&created_before=2026-11-22T12:00:00')
  t.equal(body.count, '2')
  t.same(
    body.items.map((s: { uuid: string }) => s.uuid),
    [uuidOf(3), uuidOf(2)],
  )
  const after = await get('?created_after=2026-11-22T11:30:00')
  t.equal(after.body.count, '2')
  const before = await get('?created_before=2026-11-22T11:00:00')
  t.same(
    before.body.items.map((s: { uuid: string }) => s.uuid),
    [uuidOf(1)],
  )
})

t.test('order_type TO_GO, ON_PREMISE and ON_PREMISES (same as ON_PREMISE); location_name exact', async (t) => {
  const { get } = await gatewayWith([
    summary(1, { orderType: 'TO_GO', locationName: 3 }),
    summary(2, { orderType: 'ON_PREMISE', locationName: 3 }),
    summary(3, { orderType: 'ON_PREMISE', locationName: 13 }),
    summary(4, { orderType: 'ON_PREMISE', locationName: null }),
  ])
  const uuidsOf = async (query: string) => (await get(query)).body.items.map((s: { uuid: string }) => s.uuid)
  t.same(await uuidsOf('?order_type=TO_GO'), [uuidOf(1)])
  t.same(await uuidsOf('?order_type=ON_PREMISE'), [uuidOf(4), uuidOf(3), uuidOf(2)])
  t.same(await uuidsOf('?order_type=ON_PREMISES'), [uuidOf(4), uuidOf(3), uuidOf(2)])
  t.same(await uuidsOf('?location_name=3'), [uuidOf(2), uuidOf(1)])
  t.same(await uuidsOf('?location_name=3&order_type=ON_PREMISES'), [uuidOf(2)])
  t.equal((await get('?location_name=99')).body.count, '0')
})

t.test('as_of: a walk through the pages ignores orders cleared since its first page', async (t) => {
  const { gw, get } = await gatewayWith(Array.from({ length: 5 }, (_, i) => summary(i)))
  const first = await get('?limit=2')
  t.equal(first.body.asOf, '5')
  // An order started long ago is cleared now: it sorts in the middle of the list.
  gw.services.history.insert(summary(100, { orderStarted: at('2026-11-22T10:02:30Z') }))
  const second = await get(`?limit=2&offset=2&as_of=${first.body.asOf}`)
  t.same(
    second.body.items.map((s: { uuid: string }) => s.uuid),
    [uuidOf(2), uuidOf(1)],
  )
  t.equal(second.body.count, '5')
  const live = await get('?limit=2&offset=2')
  t.equal(live.body.count, '6', 'without as_of the list is live')
})

const errors: [string, number, RegExp][] = [
  ['limit=0', -23, /limit/],
  ['limit=abc', -23, /limit/],
  ['limit=-1', -23, /limit/],
  ['limit=2.5', -23, /limit/],
  ['limit=', -23, /limit/],
  ['limit=101', -26, /above 100/],
  ['limit=99999999999999', -26, /above 100/],
  ['offset=-1', -24, /offset/],
  ['offset=x', -24, /offset/],
  ['offset=1.5', -24, /offset/],
  ['as_of=x', -24, /as_of/],
  ['created_after=2026-11-22 10:00:00', -25, /created_after must be YYYY-MM-DDTHH:MM:SS/],
  ['created_after=2026-11-22T10:00:00Z', -25, /created_after/],
  ['created_after=2026-11-22', -25, /created_after/],
  ['created_before=2026-02-30T10:00:00', -25, /created_before must be YYYY-MM-DDTHH:MM:SS/],
  ['created_before=2026-11-22T24:00:00', -25, /created_before/],
  ['order_type=DELIVERY', -12, /TO_GO/],
  ['order_type=to_go', -12, /TO_GO/],
  ['order_type=', -12, /TO_GO/],
  ['location_name=0', -10, /Location/],
  ['location_name=abc', -10, /Location/],
  ['location_name=-3', -10, /Location/],
  [`location_name=${'1'.repeat(300)}`, -10, /Location/],
]

t.test('every bad parameter answers 400 with its code and changes nothing', async (t) => {
  const { get } = await gatewayWith([summary(1)])
  for (const [query, code, message] of errors) {
    const { status, body } = await get(`?${query.replace(' ', '%20')}`)
    t.equal(status, 400, query)
    t.equal(body.returnCode, code, query)
    t.match(body.message, message, query)
  }
})
