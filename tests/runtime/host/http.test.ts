// The HTTP host on a real socket (port 0, loopback): limits, timeouts, error answers,
// graceful close, the log line per request, and the lazy Request it hands to the router.
import http from 'node:http'
import net from 'node:net'
import t, { type Test } from 'tap'
import { RawJson } from '../../../lib/api/raw-json.ts'
import { createHttpHost, type HttpHostOptions } from '../../../runtime/host/http.ts'
import { buildRouter } from '../../../runtime/host/router.ts'
import { testGateway } from '../../helpers/gateway.ts'
import { testEntry } from '../../helpers/manifest.ts'
import { until } from '../../helpers/until.ts'

const entry = testEntry
/** One list serialised once, as a cached list is (lib/api/raw-json.ts). */
const kept = new RawJson('[{"city":"Zürich"}]')

interface Gate {
  entered: Promise<void>
  release(): void
}

function gate(): Gate & { enter(): Promise<void>; held(): number } {
  let entered!: () => void
  let release!: () => void
  let held = 0
  const enteredPromise = new Promise<void>((resolve) => (entered = resolve))
  const released = new Promise<void>((resolve) => (release = resolve))
  return {
    entered: enteredPromise,
    release,
    held: () => held,
    enter: () => {
      held++
      entered()
      return released
    },
  }
}

/** True when a new connection to the port is refused (the listener has closed). */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      resolve(false)
    })
    socket.once('error', () => resolve(true))
  })
}

async function serve(t: Test, options: HttpHostOptions = {}) {
  const gw = await testGateway()
  const slow = gate()
  /** The abort signal of each held request, by its `q`. */
  const heldSignals = new Map<string, AbortSignal>()
  const manifest = [
    entry('v2/echo.post.ts', 'POST', '/api/v2/echo', async (_request, ctx) => ctx.ok({ got: await ctx.body() })),
    entry('v2/boom.get.ts', 'GET', '/api/v2/boom', async () => {
      throw new TypeError('secret internals at /srv/gateway/db.ts:12')
    }),
    entry('v2/slow.get.ts', 'GET', '/api/v2/slow', async (_request, ctx) => {
      await slow.enter()
      return ctx.ok({ done: true })
    }),
    entry('v2/whoami.get.ts', 'GET', '/api/v2/whoami', async (request, ctx) =>
      ctx.ok({
        ip: ctx.caller.ip,
        q: ctx.query.get('q'),
        url: request.url,
        method: request.method,
        accept: request.headers.get('accept'),
        names: [...request.headers.keys()].sort(),
        aborted: request.signal.aborted,
      }),
    ),
    entry(
      'v2/text.get.ts',
      'GET',
      '/api/v2/text',
      async () => new Response('plain words', { status: 202, headers: { 'content-type': 'text/plain', 'x-kind': 'other' } }),
    ),
    entry('v2/raw.post.ts', 'POST', '/api/v2/raw', async (request, ctx) => ctx.ok({ text: await request.text() })),
    entry('v2/kept.get.ts', 'GET', '/api/v2/kept', async (_request, ctx) => ctx.ok({ count: 1, items: kept })),
    entry('v2/held.get.ts', 'GET', '/api/v2/held', async (request, ctx) => {
      heldSignals.set(ctx.query.get('q') ?? '', request.signal)
      await slow.enter()
      return ctx.ok({ q: ctx.query.get('q') })
    }),
  ]
  const host = createHttpHost(buildRouter(manifest, gw.services), gw.services.log, options)
  const port = await host.listen(0, '127.0.0.1')
  t.teardown(() => host.close(100))
  const base = `http://127.0.0.1:${port}`
  const requestLines = () => gw.logs.lines().filter((line) => line.msg === 'request')
  return { gw, host, port, base, slow, heldSignals, requestLines }
}

/** One request on its own connection; resolves with status, headers and body text. */
function send(
  port: number,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string | string[] } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, method, path, headers: options.headers, agent: false }, (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk) => (text += chunk))
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, text }))
    })
    request.on('error', reject)
    const chunks = typeof options.body === 'string' ? [options.body] : (options.body ?? [])
    for (const chunk of chunks) request.write(chunk)
    request.end()
  })
}

/** Raw bytes on a socket; resolves with everything the server sent before closing. */
function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1')
    let received = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk) => (received += chunk))
    socket.on('close', () => resolve(received))
    socket.on('error', reject)
    socket.write(bytes)
  })
}

t.test('a kept answer goes out as its bytes: same body, length in bytes', async (t) => {
  const { port } = await serve(t)
  for (let round = 0; round < 2; round++) {
    const answer = await send(port, 'GET', '/api/v2/kept')
    t.equal(answer.status, 200)
    t.same(JSON.parse(answer.text), { status: 200, returnCode: 42, count: 1, items: [{ city: 'Zürich' }] })
    t.equal(answer.headers['content-length'], String(Buffer.byteLength(answer.text)), 'ü counted as two bytes')
  }
})

t.test('404 -5 in the shape of the version, also for an unserved method', async (t) => {
  const { port } = await serve(t)
  const v2 = await send(port, 'GET', '/api/v2/nope')
  t.equal(v2.status, 404)
  t.same(JSON.parse(v2.text), { status: 404, returnCode: -5, message: 'Route not found' })
  t.equal(v2.headers['content-type'], 'application/json; charset=utf-8')
  t.equal(v2.headers['content-length'], String(Buffer.byteLength(v2.text)))
  const v1 = await send(port, 'GET', '/api/v1/nope')
  t.same(JSON.parse(v1.text), { status: 404, message: 'Route not found' })
  const method = await send(port, 'DELETE', '/api/v2/echo')
  t.equal(method.status, 404)
  t.equal(JSON.parse(method.text).returnCode, -5)
})

t.test('JSON bodies: echoed, 400 -31 when malformed', async (t) => {
  const { port } = await serve(t)
  const ok = await send(port, 'POST', '/api/v2/echo', { body: '{"name":"7"}', headers: { 'content-type': 'application/json' } })
  t.equal(ok.status, 200)
  t.same(JSON.parse(ok.text), { status: 200, returnCode: 42, got: { name: '7' } })
  const chunked = await send(port, 'POST', '/api/v2/echo', { body: ['{"na', 'me":"8"}'] })
  t.same(JSON.parse(chunked.text).got, { name: '8' }, 'a chunked body under the limit is read whole')
  const bad = await send(port, 'POST', '/api/v2/echo', { body: '{"name":' })
  t.equal(bad.status, 400)
  t.same(JSON.parse(bad.text), { status: 400, returnCode: -31, message: 'Invalid JSON payload' })
})

t.test('bodies above 16 KiB: 413 -35 by Content-Length and while reading a chunked body', async (t) => {
  const { port } = await serve(t)
  const big = JSON.stringify({ name: 'x'.repeat(17 * 1024) })
  const declared = await send(port, 'POST', '/api/v2/echo', { body: big })
  t.equal(declared.status, 413)
  t.same(JSON.parse(declared.text), { status: 413, returnCode: -35, message: 'Request body is larger than 16 KiB' })
  t.equal(declared.headers.connection, 'close', 'the unread upload is not drained')

  const pieces = Array.from({ length: 20 }, () => 'y'.repeat(1024))
  const chunked = await send(port, 'POST', '/api/v2/echo', { body: pieces })
  t.equal(chunked.status, 413)
  t.equal(JSON.parse(chunked.text).returnCode, -35)
})

t.test('headers above 16 KiB: 431', async (t) => {
  const { port } = await serve(t)
  const answer = await rawExchange(port, `GET /api/v2/whoami HTTP/1.1\r\nHost: x\r\nX-Big: ${'z'.repeat(17 * 1024)}\r\n\r\n`)
  t.match(answer, /^HTTP\/1\.1 431 /)
  t.match(answer, /"status":431/)
})

t.test('an unexpected error: 500 -99, no details for the client, logged for us', async (t) => {
  const { gw, port } = await serve(t)
  const answer = await send(port, 'GET', '/api/v2/boom')
  t.equal(answer.status, 500)
  t.same(JSON.parse(answer.text), { status: 500, returnCode: -99, message: 'Internal error' })
  t.notMatch(answer.text, /secret|srv|TypeError|\bat\b/)
  const logged = gw.logs.lines().find((line) => line.msg === 'unexpected error') as any
  t.ok(logged, 'logged')
  t.match(logged.err, { type: 'TypeError', message: /secret internals/ })
  t.match(logged.err.stack, /router\.test|http\.test/, 'with its stack')
})

t.test('slowloris: a header block that never ends is cut off by the server', async (t) => {
  const { port } = await serve(t, { headersTimeoutMs: 300, requestTimeoutMs: 600, timeoutCheckIntervalMs: 50 })
  const started = performance.now()
  const answer = await rawExchange(port, 'GET /api/v2/whoami HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n')
  t.match(answer, /^HTTP\/1\.1 408 /, 'answered 408, then closed')
  // Node's default headers timeout is 60 s; half of it is a margin no busy machine uses up.
  t.ok(performance.now() - started < 30_000, 'within the configured timeout, not the default')
})

t.test('graceful close: an in-flight request finishes, then the server stops', async (t) => {
  const { host, port, slow } = await serve(t)
  const pending = send(port, 'GET', '/api/v2/slow')
  await slow.entered
  let closed = false
  const closing = host.close(10_000).then(() => (closed = true))
  await until(() => refused(port), 'the listener closed')
  t.equal(closed, false, 'close stopped listening but waits for the request in flight')
  slow.release()
  const answer = await pending
  t.equal(answer.status, 200)
  t.same(JSON.parse(answer.text), { status: 200, returnCode: 42, done: true })
  t.equal(answer.headers.connection, 'close', 'the connection is not kept for another request')
  await closing
  t.equal(closed, true)
  await t.rejects(send(port, 'GET', '/api/v2/whoami'), 'no new connections after close')
})

t.test('one log line per request with method, path, status and duration', async (t) => {
  const { port, requestLines } = await serve(t)
  await send(port, 'GET', '/api/v2/whoami?token=abc')
  await send(port, 'POST', '/api/v2/echo', { body: '{' })
  await send(port, 'GET', '/api/v1/none')
  const lines = requestLines()
  t.equal(lines.length, 3)
  t.match(lines[0], { level: 30, method: 'GET', path: '/api/v2/whoami', status: 200, msg: 'request' })
  t.notMatch(JSON.stringify(lines), /abc/, 'no query string in the log')
  t.match(lines[1], { method: 'POST', path: '/api/v2/echo', status: 400 })
  t.match(lines[2], { method: 'GET', path: '/api/v1/none', status: 404 })
  for (const line of lines) t.ok(typeof line.ms === 'number' && (line.ms as number) >= 0)
})

t.test('the Request a function sees: URL, headers, signal; the socket address, whatever the headers say', async (t) => {
  const { port } = await serve(t)
  const answer = await send(port, 'GET', '/api/v2/whoami?q=%C3%A9t%C3%A9', {
    headers: { accept: 'application/json', 'x-forwarded-for': '10.9.9.9', host: 'localhost:8000' },
  })
  const body = JSON.parse(answer.text)
  t.equal(body.ip, '127.0.0.1', 'a real socket: the header is ignored')
  t.equal(body.q, 'été')
  t.equal(body.url, 'http://localhost:8000/api/v2/whoami?q=%C3%A9t%C3%A9')
  t.equal(body.method, 'GET')
  t.equal(body.accept, 'application/json')
  t.ok(body.names.includes('host') && body.names.includes('x-forwarded-for'), 'iterating headers works')
  t.equal(body.aborted, false)

  const odd = await send(port, 'GET', '/api/v2/whoami', { headers: { host: 'bad host/../x' } })
  t.same(JSON.parse(odd.text), { status: 421, returnCode: -41, message: 'Unknown host' }, 'an implausible Host is refused')

  const raw = await send(port, 'POST', '/api/v2/raw', { body: 'not json at all' })
  t.equal(JSON.parse(raw.text).text, 'not json at all', 'request.text() reads the body through a real Request')
})

t.test('a Response that is not ours is copied out whole', async (t) => {
  const { port } = await serve(t)
  const answer = await send(port, 'GET', '/api/v2/text')
  t.equal(answer.status, 202)
  t.equal(answer.text, 'plain words')
  t.equal(answer.headers['x-kind'], 'other')
  t.equal(answer.headers['content-type'], 'text/plain')
  t.equal(answer.headers['content-length'], '11')
})

t.test('keep-alive: several requests on one connection', async (t) => {
  const { base } = await serve(t)
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  t.teardown(() => agent.destroy())
  const ports = new Set<number>()
  for (let i = 0; i < 3; i++) {
    await new Promise<void>((resolve, reject) => {
      http
        .get(`${base}/api/v2/whoami`, { agent }, (response) => {
          ports.add(response.socket.localPort!)
          response.resume()
          response.on('end', resolve)
        })
        .on('error', reject)
    })
  }
  t.equal(ports.size, 1, 'one socket served all three')
})

t.test('answers that are ready together are written together, each to its own client', async (t) => {
  const { port, slow, heldSignals } = await serve(t)
  // 40 requests held until the same moment, so all 40 answers are queued in one turn (more
  // than one batch); one client gives up first, and its answer is simply not written.
  const answers = Array.from({ length: 40 }, (_, i) => send(port, 'GET', `/api/v2/held?q=${i}`))
  const quitter = http.get({ host: '127.0.0.1', port, path: '/api/v2/held?q=gone', agent: false })
  quitter.on('error', () => undefined)
  await until(() => slow.held() === 41, 'all 41 requests held')
  quitter.destroy()
  await until(() => heldSignals.get('gone')?.aborted === true, 'the host saw the quitter go')
  slow.release()
  const results = await Promise.all(answers)
  t.same(
    results.map((r) => [r.status, JSON.parse(r.text).q]),
    Array.from({ length: 40 }, (_, i) => [200, String(i)]),
  )
})

t.test('timed-out connections are destroyed after the 408, even when the client never closes its side', async (t) => {
  const { host, port } = await serve(t, { headersTimeoutMs: 300, requestTimeoutMs: 600, timeoutCheckIntervalMs: 50 })
  const clients = Array.from({ length: 20 }, () => net.connect({ port, host: '127.0.0.1', allowHalfOpen: true }))
  t.teardown(() => {
    for (const client of clients) client.destroy()
  })
  const answers = clients.map(
    (client) =>
      new Promise<string>((resolve) => {
        let text = ''
        client.on('data', (chunk) => (text += chunk))
        client.on('end', () => resolve(text))
        client.on('error', () => resolve(text))
        client.write('GET /api/v2/whoami HTTP/1.1\r\nHost: 127.0.0.1\r\n')
      }),
  )
  for (const answer of await Promise.all(answers)) t.match(answer, /^HTTP\/1\.1 408 /)
  // The clients keep their sockets open; the server must not keep its side.
  await until(async () => (await new Promise<number>((resolve) => host.server.getConnections((_e, n) => resolve(n)))) === 0, 'no connection left')
  t.equal(host.connections, 0, 'none counted either')
})

t.test('a connection reused after 5 s idle (undici, agents) is still open: keep-alive outlasts clients', async (t) => {
  const { base } = await serve(t)
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  t.teardown(() => agent.destroy())
  const localPort = () =>
    new Promise<number>((resolve, reject) => {
      http
        .request(`${base}/api/v2/echo`, { agent, method: 'POST', headers: { 'content-type': 'application/json' } }, (response) => {
          const port = response.socket.localPort!
          response.resume()
          response.on('end', () => resolve(port))
        })
        .on('error', reject)
        .end('{"n":1}')
    })
  const first = await localPort()
  // The idle time is what is being tested (5 s was the old server timeout), not a wait for an event.
  await new Promise((resolve) => setTimeout(resolve, 5_500))
  t.equal(await localPort(), first, 'the same connection carried the POST: it was not closed under the client')
  agent.destroy()
})
