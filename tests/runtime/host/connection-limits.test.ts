// Connection caps and per-connection backpressure on a real HTTP host (loopback; other
// 127.x addresses stand in for other LAN clients).
import net from 'node:net'
import t, { type Test } from 'tap'
import { addressOf, clientKeyOf } from '../../../runtime/host/connection-limits.ts'
import { createHttpHost, type HttpHostOptions } from '../../../runtime/host/http.ts'
import { buildRouter } from '../../../runtime/host/router.ts'
import { testGateway } from '../../helpers/gateway.ts'
import { testEntry } from '../../helpers/manifest.ts'
import { until } from '../../helpers/until.ts'

async function serve(t: Test, options: HttpHostOptions) {
  const gw = await testGateway()
  let answered = 0
  let echoStarted = 0
  const pad = 'x'.repeat(256 * 1024)
  const held: (() => void)[] = []
  const manifest = [
    testEntry('v2/small.get.ts', 'GET', '/api/v2/small', async (_request, ctx) => ctx.ok({ ok: true })),
    testEntry('v2/big.get.ts', 'GET', '/api/v2/big', async (_request, ctx) => {
      answered++
      return ctx.ok({ n: answered, pad })
    }),
    // Answered only once the test lets it go: a request being answered.
    testEntry('v2/slow.get.ts', 'GET', '/api/v2/slow', async (_request, ctx) => {
      await new Promise<void>((resolve) => held.push(resolve))
      return ctx.ok({ slow: true })
    }),
    testEntry('v2/echo.post.ts', 'POST', '/api/v2/echo', async (_request, ctx) => {
      echoStarted++
      return ctx.ok({ body: await ctx.body() })
    }),
    { ...testEntry('v2/mine.get.ts', 'GET', '/api/v2/mine', async (_request, ctx) => ctx.ok({ mine: true })), auth: 'bearer' as const },
  ]
  const host = createHttpHost(buildRouter(manifest, gw.services), gw.services.log, options)
  const port = await host.listen(0, '127.0.0.1')
  t.teardown(() => {
    for (const release of held) release()
    return host.close(100)
  })
  return { gw, host, port, answered: () => answered, held, echoStarted: () => echoStarted }
}

interface Client {
  socket: net.Socket
  /** Everything received so far. */
  text: () => string
  closed: Promise<void>
}

/** A connection from `from` (a 127.x address standing in for a LAN client), sending `request` if given. */
function client(t: Test, port: number, from: string, request?: string): Promise<Client> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress: from })
    t.teardown(() => socket.destroy())
    let text = ''
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => (text += chunk))
    socket.on('error', () => undefined)
    const closed = new Promise<void>((done) => socket.on('close', () => done()))
    socket.once('connect', () => {
      if (request) socket.write(request)
      resolve({ socket, text: () => text, closed })
    })
  })
}

const get = (path: string, headers = '') => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}\r\n`
const status = (text: string) => /^HTTP\/1\.1 (\d+)/.exec(text)?.[1]

/** A connection from `from` that has had one answer (so the server has counted it), or the refusal it got. */
async function answered(t: Test, port: number, from: string, request = get('/api/v2/small')): Promise<Client> {
  const c = await client(t, port, from, request)
  await until(() => c.text().includes('}') || c.socket.destroyed, 'an answer')
  return c
}

async function openCount(host: { connections: number }, count: number) {
  await until(() => host.connections === count, `${count} connections counted`)
}

t.test('a full address makes room by shedding its idle connection, oldest first; busy ones stay', async (t) => {
  const { host, port, held } = await serve(t, { limits: { maxConnections: 100, maxPerAddress: 2 } })
  const first = await answered(t, port, '127.0.0.1')
  const second = await answered(t, port, '127.0.0.1')
  t.equal(status(first.text()), '200')
  const third = await answered(t, port, '127.0.0.1')
  t.equal(status(third.text()), '200', 'a third from one address is served')
  await first.closed
  t.pass('the oldest idle one of that address was closed for it')
  t.notOk(second.socket.destroyed, 'the younger one stays')
  await openCount(host, 2)

  // Both places busy with requests being answered: nothing to shed, the newcomer is refused.
  second.socket.write(get('/api/v2/slow'))
  third.socket.write(get('/api/v2/slow'))
  await until(() => held.length === 2, 'both requests in the handler')
  const fourth = await answered(t, port, '127.0.0.1')
  t.equal(status(fourth.text()), '503', 'refused when every place of the address is busy')
  t.match(fourth.text(), /"message":"Too many connections"/)
  for (const release of held) release()
  await until(() => second.text().includes('"slow":true') && third.text().includes('"slow":true'), 'both answered')
  t.notOk(second.socket.destroyed || third.socket.destroyed, 'busy connections were never shed')
})

t.test('a full box sheds from the address holding most, first what never sent a request', async (t) => {
  // No grace for new connections here: the silent ones count as never sending at once.
  const { host, port } = await serve(t, { limits: { maxConnections: 4, maxPerAddress: 3, newConnectionGraceMs: 0 } })
  const served = await answered(t, port, '127.0.0.2')
  const silent = [await client(t, port, '127.0.0.2'), await client(t, port, '127.0.0.2')]
  const other = await answered(t, port, '127.0.0.3')
  await openCount(host, 4)
  const newcomer = await answered(t, port, '127.0.0.4')
  t.equal(status(newcomer.text()), '200', 'a new address is served on a full box')
  await silent[0].closed
  t.pass("the busiest address's oldest connection that never sent a request was shed")
  t.notOk(served.socket.destroyed, 'before its idle keep-alive connection')
  t.notOk(other.socket.destroyed, 'and nothing of the smaller address')
  t.equal(host.connections, 4)
})

t.test('a half-sent request is shed, an authenticated connection never', async (t) => {
  const { gw, host, port, echoStarted } = await serve(t, { limits: { maxConnections: 100, maxPerAddress: 2 } })
  const token = await gw.issueToken()
  const board = await answered(t, port, '127.0.0.5', get('/api/v2/mine', `Authorization: Bearer ${token}\r\n`))
  t.equal(status(board.text()), '200')
  // Headers sent, the body never finishes.
  const half = await client(
    t,
    port,
    '127.0.0.5',
    'POST /api/v2/echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":',
  )
  await openCount(host, 2)
  await until(() => echoStarted() === 1, 'its handler waiting for the body')
  const next = await answered(t, port, '127.0.0.5')
  t.equal(status(next.text()), '200')
  await half.closed
  t.pass('the half-sent request made room')
  t.notOk(board.socket.destroyed, 'the authenticated connection stays')
  // Now the address holds the board and `next` (idle): one more sheds `next`, never the board.
  const again = await answered(t, port, '127.0.0.5')
  t.equal(status(again.text()), '200')
  await next.closed
  t.notOk(board.socket.destroyed, 'still there')
})

t.test('a client that does not read its answers is shed for a newcomer rather than refusing it', async (t) => {
  const { host, port, answered: made } = await serve(t, { limits: { maxConnections: 100, maxPerAddress: 1 } })
  const reader = await client(t, port, '127.0.0.6')
  reader.socket.pause()
  reader.socket.write(get('/api/v2/big').repeat(20))
  // Answers are made until the kernel's buffers and the unwritten-bytes budget are full.
  let last = -1
  let steadySince = Date.now()
  await until(
    () => {
      if (made() !== last) {
        last = made()
        steadySince = Date.now()
      }
      return made() > 0 && Date.now() - steadySince > 300
    },
    'the server held up by what the client does not read',
    15_000,
  )
  await openCount(host, 1)
  const newcomer = await answered(t, port, '127.0.0.6')
  t.equal(status(newcomer.text()), '200', 'the newcomer of the same address is served')
  t.equal(host.connections, 1, 'in place of the one that did not read')
  // Paused, it would not even notice: reading, it finds its connection closed.
  reader.socket.resume()
  await reader.closed
  t.pass('the connection that did not read was closed for it')
})

t.test('IPv6 clients count per /64; IPv4-mapped addresses as IPv4', async (t) => {
  t.equal(clientKeyOf({ remoteAddress: '2001:db8:1:2::1' }), clientKeyOf({ remoteAddress: '2001:db8:1:2:ffff::9' }))
  t.not(clientKeyOf({ remoteAddress: '2001:db8:1:2::1' }), clientKeyOf({ remoteAddress: '2001:db8:1:3::1' }))
  t.equal(clientKeyOf({ remoteAddress: '::ffff:10.0.0.7' }), '10.0.0.7')
  t.equal(addressOf({ remoteAddress: '::FFFF:10.0.0.7' }), '10.0.0.7')
  t.not(clientKeyOf({ remoteAddress: '::ffff:10.0.0.7' }), clientKeyOf({ remoteAddress: '::ffff:10.0.0.8' }))
})

t.test('a client pipelining without reading gets no more answers made than it can hold', async (t) => {
  const { port, answered } = await serve(t, {})
  const requests = 200
  const socket = net.connect({ port, host: '127.0.0.1' })
  t.teardown(() => socket.destroy())
  socket.pause()
  await new Promise((resolve) => socket.once('connect', resolve))
  socket.write('GET /api/v2/big HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'.repeat(requests))
  // Wait until the server stops making answers (the kernel's buffers are full as well).
  let last = -1
  let steadySince = Date.now()
  const deadline = Date.now() + 15_000
  while (Date.now() - steadySince < 500 && Date.now() < deadline) {
    if (answered() !== last) {
      last = answered()
      steadySince = Date.now()
    }
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  t.ok(answered() < requests / 2, `${answered()} of ${requests} answers made while the client reads nothing`)

  // Once it reads, every answer comes, in order.
  let text = ''
  socket.setEncoding('latin1')
  socket.on('data', (chunk: string) => (text += chunk))
  socket.resume()
  await new Promise<void>((resolve) => {
    const check = () => ((text.match(/HTTP\/1\.1 200/g)?.length ?? 0) >= requests && text.endsWith('}') ? resolve() : setTimeout(check, 20))
    check()
  })
  const order = [...text.matchAll(/"n":(\d+)/g)].map((m) => Number(m[1]))
  t.same(
    order,
    Array.from({ length: requests }, (_, i) => i + 1),
  )
})

t.test('a connection with too many requests waiting is closed', async (t) => {
  const { port } = await serve(t, { limits: { maxActivePerConnection: 1, maxWaitingPerConnection: 3 } })
  const socket = net.connect({ port, host: '127.0.0.1' })
  t.teardown(() => socket.destroy())
  socket.on('error', () => undefined)
  socket.resume()
  await new Promise((resolve) => socket.once('connect', resolve))
  // Small answers: node itself stops parsing only once answers pile up unwritten.
  socket.write('GET /api/v2/small HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'.repeat(50))
  await new Promise((resolve) => socket.once('close', resolve))
  t.pass('closed by the server')
})

// Fair shares (issue 41). Loopback takes no share by default (the box's own programs); here
// 127.x addresses stand in for LAN hosts, so loopbackShares is on.
const shares = { loopbackShares: true, maxActivePerAddress: 2, maxActiveUnauthenticated: 3 }

t.test('requests without a credential: a few per address at a time, the rest wait; a waiting connection is shed for a newcomer', async (t) => {
  const { host, port, held } = await serve(t, { limits: { ...shares, maxConnections: 100, maxPerAddress: 3, newConnectionGraceMs: 0 } })
  const slow = [await client(t, port, '127.0.0.20', get('/api/v2/slow')), await client(t, port, '127.0.0.20', get('/api/v2/slow'))]
  await until(() => held.length === 2, 'two slow requests of the address in the handler')
  const third = await client(t, port, '127.0.0.20', get('/api/v2/small'))
  await openCount(host, 3)
  await new Promise((resolve) => setTimeout(resolve, 200))
  t.equal(third.text(), '', 'its third request waits for its share, even a quick one')
  // The address is at its 3 connections: a fourth sheds the waiting one, not a busy one.
  const fourth = await client(t, port, '127.0.0.20')
  await third.closed
  t.pass('the connection whose request waited was shed for the newcomer')
  t.notOk(
    slow.some((c) => c.socket.destroyed),
    'the ones being answered stay',
  )
  fourth.socket.write(get('/api/v2/small'))
  held.shift()!()
  await until(() => fourth.text().includes('"ok":true'), 'the newcomer answered once a share is free')
  for (const release of held) release()
})

t.test('another address is answered while one holds its share; addresses take turns for the shares in all', async (t) => {
  const { port, held } = await serve(t, { limits: { ...shares, maxConnections: 100, maxPerAddress: 10 } })
  for (let i = 0; i < 2; i++) await client(t, port, '127.0.0.21', get('/api/v2/slow'))
  await until(() => held.length === 2, 'the first address at its share')
  const other = await client(t, port, '127.0.0.22', get('/api/v2/slow'))
  await until(() => held.length === 3, 'another address answered beside it: 3 in all, the cap')
  // Both addresses queue more; as shares free, they alternate.
  const queued = [
    await client(t, port, '127.0.0.22', get('/api/v2/small')),
    await client(t, port, '127.0.0.22', get('/api/v2/small')),
    await client(t, port, '127.0.0.23', get('/api/v2/small')),
  ]
  await new Promise((resolve) => setTimeout(resolve, 200))
  t.ok(
    queued.every((c) => c.text() === ''),
    'all wait while the 3 shares are taken',
  )
  const order: number[] = []
  for (const [i, c] of queued.entries()) c.socket.once('data', () => order.push(i))
  held.shift()!() // one of 127.0.0.21's: one share free, each quick answer passes it on
  await until(() => order.length === 3, 'every waiting request answered')
  t.same(order, [0, 2, 1], '127.0.0.22 waited longest, then 127.0.0.23 has its turn before 127.0.0.22 again')
  t.notOk(other.socket.destroyed)
  for (const release of held) release()
})

t.test('a request whose token verifies takes no share: a board behind a busy address is answered at once', async (t) => {
  let asked = 0
  const { gw, port, held } = await serve(t, {
    limits: { ...shares, maxConnections: 100, maxPerAddress: 10 },
    credentialed: (request) => {
      asked++
      return request.headers.authorization === `Bearer ${token}`
    },
  })
  const token = await gw.issueToken()
  for (let i = 0; i < 2; i++) await client(t, port, '127.0.0.24', get('/api/v2/slow'))
  await until(() => held.length === 2, 'the address at its share')
  const stranger = await client(t, port, '127.0.0.24', get('/api/v2/mine', 'Authorization: Bearer not-a-token\r\n'))
  const board = await client(t, port, '127.0.0.24', get('/api/v2/mine', `Authorization: Bearer ${token}\r\n`))
  await until(() => board.text().includes('"mine":true'), 'the board answered')
  t.equal(stranger.text(), '', 'a request whose token does not verify waits its turn')
  board.socket.write(get('/api/v2/small'))
  await until(() => board.text().includes('"ok":true'), 'and its next request too, without a second check')
  t.equal(asked, 2, 'asked only for the two requests that would have waited')
  for (const release of held) release()
})

t.test('loopback takes no share unless told to', async (t) => {
  const { port, held } = await serve(t, { limits: { maxActivePerAddress: 1, maxConnections: 100 } })
  for (let i = 0; i < 3; i++) await client(t, port, '127.0.0.25', get('/api/v2/slow'))
  await until(() => held.length === 3, 'three slow requests of one loopback address in the handler at once')
  for (const release of held) release()
})

t.test('requests still arriving take a share of their address only: slow senders cannot hold the shares in all', async (t) => {
  const { port, echoStarted } = await serve(t, { limits: { ...shares, maxActiveUnauthenticated: 1, maxConnections: 100, maxPerAddress: 10 } })
  // Headers sent, the body never finishes: its handler waits for the body.
  await client(t, port, '127.0.0.26', 'POST /api/v2/echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":')
  await until(() => echoStarted() === 1, 'the slow sender in its handler')
  const other = await client(t, port, '127.0.0.27', get('/api/v2/small'))
  await until(() => other.text().includes('"ok":true'), 'another address answered beside it although the cap in all is 1')
})
