import { pino } from 'pino'
import t from 'tap'
import { createLogger } from '../../../lib/kernel/log.ts'
import { BadRequestSampler } from '../../../runtime/host/bad-request-sampler.ts'
import { RequestLog } from '../../../runtime/host/request-log.ts'

function logger(level: string) {
  const writes: string[] = []
  return { writes, log: createLogger({ level, destination: { write: (text: string) => void writes.push(text) } }) }
}

t.test("request lines have pino's shape and wait to be written together", async (t) => {
  const { writes, log } = logger('info')
  const requests = new RequestLog(log)
  requests.request('GET', '/api/v2/orders', 200, 0.25)
  requests.request('POST', '/api/v2/activeorders', 400, 1.5)
  t.same(writes, [], 'held back')
  log.flush()
  t.equal(writes.length, 1, 'one write for both')
  const lines = writes[0]
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
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
  const lines = writes
    .join('')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
  t.same(
    lines.map((line) => [line.method, line.path, line.status]),
    sent,
  )
  t.ok(lines.every((line) => line.level === 30 && line.service === 'tracker-gateway' && line.msg === 'request'))
})

t.test('bad requests are sampled per address, each line with the address and its count (issue 41)', async (t) => {
  const { writes, log } = logger('info')
  let now = 1_000_000
  const requests = new RequestLog(log, new BadRequestSampler({ windowMs: 60_000, burst: 3 }, () => now))
  for (let i = 0; i < 100; i++) requests.request('GET', '/nope', 404, 1, '10.0.0.9')
  requests.request('GET', '/nope', 404, 1, '10.0.0.8')
  requests.request('GET', '/api/v2', 200, 1, '10.0.0.9')
  now += 60_000
  requests.request('GET', '/nope', 404, 1, '10.0.0.9')
  log.flush()
  const lines = writes
    .join('')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
  const from9 = lines.filter((line) => line.ip === '10.0.0.9')
  t.same(
    from9.map((line) => line.count),
    [1, 2, 3, 6, 12, 24, 48, 96, 1],
    'the first three, then each doubling, then a new minute',
  )
  t.ok(from9.every((line) => line.status === 404 && line.path === '/nope'))
  t.match(
    lines.find((line) => line.ip === '10.0.0.8'),
    { count: 1 },
    'another address has its own count',
  )
  t.match(
    lines.find((line) => line.status === 200),
    { path: '/api/v2' },
    'good requests are all written',
  )
  t.notOk('ip' in lines.find((line) => line.status === 200), 'without an address')
})

t.test('IPv6 clients are counted per /64', async (t) => {
  const { writes, log } = logger('info')
  const requests = new RequestLog(log, new BadRequestSampler({ burst: 2 }))
  for (let i = 1; i <= 8; i++) requests.request('GET', '/nope', 404, 1, `fd00:1:2:3::${i}`)
  log.flush()
  const lines = writes
    .join('')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
  t.same(
    lines.map((line) => line.count),
    [1, 2, 4, 8],
    'eight addresses of one /64 count as one client',
  )
  t.equal(lines[3].ip, 'fd00:1:2:3::8', 'each line names the address itself')
})
