// The history row of a cleared order (lib/orders/types.ts summaryOf): the last line of
// defence against times no step could mend.
import t from 'tap'
import { summaryOf } from '../../../lib/orders/types.ts'
import { sampleOrder } from '../../helpers/orders.ts'

t.test('a row never ends before it starts, nor is located outside its span', async (t) => {
  const order = sampleOrder(1, 10_000, { located: 12_000, state: 'located' })
  t.match(summaryOf(order, 20_000), { orderStarted: 10_000, orderLocated: 12_000, orderCleared: 20_000 }, 'right times are kept')
  // Started on a clock a day ahead that nothing could mend.
  const ahead = sampleOrder(2, 86_410_000, { located: 86_420_000, state: 'located' })
  t.match(summaryOf(ahead, 20_000), { orderStarted: 20_000, orderLocated: 20_000, orderCleared: 20_000 })
  const locatedEarly = sampleOrder(3, 10_000, { located: 5000, state: 'located' })
  t.match(summaryOf(locatedEarly, 20_000), { orderStarted: 10_000, orderLocated: 10_000 })
})
