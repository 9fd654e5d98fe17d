import t from 'tap'
import { activeOrderV1, activeOrderV2 } from '../../../lib/api/present-order.ts'
import { ManualClock } from '../../helpers/manual-clock.ts'
import { ActiveOrderList } from '../../../lib/api/active-list.ts'
import { sampleOrder } from '../../helpers/orders.ts'

const order = (name: number, created: number) => sampleOrder(name, created, { orderType: 'TO_GO', tracking: false })

function setup() {
  const clock = new ManualClock('2026-11-22T12:00:00.200Z')
  const state = { revision: 0, orders: [order(1, clock.now() - 5000)] }
  const settings = { timezone: 'Europe/Paris' }
  let lists = 0
  const orders = {
    get revision() {
      return state.revision
    },
    list: () => {
      lists++
      return state.orders.map((o) => ({ ...o }))
    },
  }
  return { clock, state, settings, list: new ActiveOrderList({ orders, clock, settings }), lists: () => lists }
}

t.test('the cached list is exactly what presenting every order gives', async (t) => {
  const { clock, state, settings, list } = setup()
  const options = { now: clock.now(), timezone: settings.timezone }
  t.same(
    JSON.parse(list.presented('v2').items.text),
    state.orders.map((o) => activeOrderV2(o, options)),
  )
  t.same(
    JSON.parse(list.presented('v1').items.text),
    state.orders.map((o) => activeOrderV1(o, options)),
  )
  t.equal(list.presented('v2').count, 1)
})

t.test('reused within the second; rebuilt on a change, a new second or a timezone change', async (t) => {
  const { clock, state, settings, list, lists } = setup()
  const first = list.presented('v2')
  await clock.advance(500)
  t.equal(list.presented('v2'), first, 'same second, same revision: cached')
  t.equal(lists(), 1)

  state.orders.push(order(2, clock.now()))
  state.revision++
  t.equal(list.presented('v2').count, 2, 'a change is seen at once')

  const before = JSON.parse(list.presented('v2').items.text)[0].elapsedTime
  await clock.advance(1000)
  t.equal(JSON.parse(list.presented('v2').items.text)[0].elapsedTime, before + 1, 'elapsedTime follows the clock')

  const created = JSON.parse(list.presented('v2').items.text)[0].created
  settings.timezone = 'UTC'
  t.not(JSON.parse(list.presented('v2').items.text)[0].created, created, 'a timezone change shows at once')
})
