import t from 'tap'
import { EventBus } from '../../../lib/events/bus.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'

t.test('a failing listener is logged and does not stop the others', async (t) => {
  const logs = memoryLogger()
  const bus = new EventBus<{ ping: number }>(logs.log)
  const got: number[] = []
  bus.on('ping', () => {
    throw new Error('boom')
  })
  bus.on('ping', async () => {
    throw new Error('async boom')
  })
  const off = bus.on('ping', (n) => void got.push(n))
  bus.emit('ping', 1)
  off()
  bus.emit('ping', 2)
  await new Promise((resolve) => setImmediate(resolve))
  t.same(got, [1])
  t.equal(logs.lines().filter((l) => l.msg === 'event listener failed').length, 4, 'both failing listeners, both emits')
})
