import { pino } from 'pino'
import t from 'tap'
import { createLogger } from '../../../lib/kernel/log.ts'
import { RequestLog } from '../../../runtime/host/request-log.ts'

function logger(level: string) {
  const writes: string[] = []
  return { writes, log: createLogger({ level, destination: { write: (text: string) => void writes.push(text) } }) }
}

t.test('request lines have pino\'s shape and wait to be written together', async (t) => {
  const { writes, log } = logger('info')
  const requests = new RequestLog(log)
  requests.request('GET', '/api/v2/orders', 200, 0.25)
  requests.request('POST', '/api/v2/activeorders', 400, 1.5)
  t.same(writes, [], 'held back')
  log.flush()
  t.equal(writes.length, 1, 'one write for both')
  const lines = writes[0].trim().split('\n').map((line) => JSON.parse(line))
  t.match(lines[0], { level: 30, service: 'tracker-gateway', method: 'GET', path: '/api/v2/orders', status: 200, ms: 0.25, msg: 'request' })
  t.match(lines[1], { method: 'POST', path: '/api/v2/activeorders', status: 400, ms: 1.5 })
  t.ok(!Number.isNaN(Date.parse(lines[0].time)), 'time is an ISO date')
})

t.test('nothing below level info', async (t) => {
  const { writes, log } = logger('warn')
  new RequestLog(log).request('GET', '/api/v2/orders', 200, 1)
  log.flush()
  t.same(writes, [])
})

t.test('a logger not made by createLogger gets its lines at once', async (t) => {
  const writes: string[] = []
  const log = pino({ base: { service: 'x' } }, { write: (text: string) => void writes.push(text) })
  new RequestLog(log).request('GET', '/p', 204, 2)
  t.equal(writes.length, 1)
  t.match(JSON.parse(writes[0]), { service: 'x', method: 'GET', path: '/p', status: 204, msg: 'request' })
})

t.test('lines in the same millisecond with other methods and paths are each right (issue 30)', async (t) => {
  const { writes, log } = logger('info')
  const requests = new RequestLog(log)
  const sent: [string, string, number][] = [
    ['GET', '/api/v2/orders', 200],
    ['GET', '/api/v2/orders', 200],
    ['GET', '/api/v2/activeorders', 200],
    ['POST', '/api/v2/activeorders', 201],
    ['GET', '/a "quoted" \\ path', 404],
  ]
  for (const [method, path, status] of sent) requests.request(method, path, status, 1)
  log.flush()
  const lines = writes.join('').trim().split('\n').map((line) => JSON.parse(line))
  t.same(lines.map((line) => [line.method, line.path, line.status]), sent)
  t.ok(lines.every((line) => line.level === 30 && line.service === 'tracker-gateway' && line.msg === 'request'))
})
