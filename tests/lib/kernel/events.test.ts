import t from 'tap'
import { EventBus } from '../../../lib/kernel/events.ts'
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

t.test('one function subscribed twice is two subscriptions, removed one at a time', async (t) => {
  const bus = new EventBus<{ ping: number }>()
  const got: number[] = []
  const record = (n: number) => void got.push(n)
  const first = bus.on('ping', record)
  bus.on('ping', record)
  bus.emit('ping', 1)
  first()
  bus.emit('ping', 2)
  t.same(got, [1, 1, 2])
})

t.test('without a logger a failing listener is contained', async (t) => {
  const bus = new EventBus<{ ping: number }>()
  const got: number[] = []
  bus.on('ping', () => {
    throw new Error('boom')
  })
  bus.on('ping', async () => {
    throw new Error('async boom')
  })
  bus.on('ping', (n) => void got.push(n))
  t.doesNotThrow(() => bus.emit('ping', 1))
  await new Promise((resolve) => setImmediate(resolve))
  t.same(got, [1])
})

t.test('an event nobody listens to is a no-op', async (t) => {
  const bus = new EventBus<{ ping: number; pong: string }>()
  bus.on('pong', () => t.fail('pong is not ping'))
  t.doesNotThrow(() => bus.emit('ping', 1))
})
