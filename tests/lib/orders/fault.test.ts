import t from 'tap'
import { faultFromEnv } from '../../../lib/orders/fault.ts'

t.test('GATEWAY_FAULT: off when unset, fires only at its point, refuses unknown points', async (t) => {
  t.equal(faultFromEnv(undefined), undefined)
  t.equal(faultFromEnv(''), undefined)
  let killed = 0
  const fault = faultFromEnv('crash-after-history-insert', () => killed++)!
  fault('crash-after-history-insert')
  t.equal(killed, 1)
  t.throws(() => faultFromEnv('crash-somewhere'), /unknown fault point/)
})
