// The answers a client gets before its request reaches a function, provoked one by one over a
// real socket against both hosts (the fast host and the @whatwg-node/server adapter behind the
// same node:http server, runtime/host/http.ts's `listener`), each validated against the served
// OpenAPI document (tests/helpers/documented-responses.ts): the host's own (400 malformed, 408,
// 431, 503 no connection place, lib/api/host-refusals.ts) and the router's before any function
// (400 bad JSON, 413, 404 unknown route, a method the path does not serve, 401, 403 scope, 429).
import net from 'node:net'
import t from 'tap'
import { manifest } from '../../../functions/_manifest.gen.ts'
import { hostRefusals } from '../../../lib/api/host-refusals.ts'
import { parseConfig } from '../../../lib/config.ts'
import { fetchAdapter } from '../../../runtime/host/fetch-adapter.ts'
import { createHttpHost } from '../../../runtime/host/http.ts'
import { buildRouter } from '../../../runtime/host/router.ts'
import { buildServices } from '../../../runtime/wiring/services.ts'
import { documentProblem } from '../../helpers/documented-responses.ts'
import { ManualClock } from '../../helpers/manual-clock.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { until } from '../../helpers/until.ts'

interface RawAnswer {
  status: number
  contentType: string | null
  body: string
}

/** The answer to `request` written on a fresh connection; `then` runs once it is connected. */
function exchange(port: number, request: string, options: { send?: (socket: net.Socket) => void } = {}): Promise<RawAnswer & { socket: net.Socket }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    socket.on('data', (chunk) => chunks.push(chunk))
    socket.on('error', reject)
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      const split = text.indexOf('\r\n\r\n')
      if (split < 0) return reject(new Error(`no answer: ${JSON.stringify(text)}`))
      const head = text.slice(0, split)
      let body = text.slice(split + 4)
      if (/^transfer-encoding: *chunked/im.test(head)) body = unchunked(body)
      resolve({ socket, status: Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1]), contentType: /^content-type: *(.+)$/im.exec(head)?.[1]?.trim() ?? null, body })
    })
    socket.once('connect', () => (options.send ? options.send(socket) : socket.write(request)))
  })
}

function unchunked(text: string): string {
  let out = ''
  let rest = text
  for (;;) {
    const line = rest.indexOf('\r\n')
    const size = Number.parseInt(rest.slice(0, line), 16)
    if (!size) return out
    out += rest.slice(line + 2, line + 2 + size)
    rest = rest.slice(line + 2 + size + 2)
  }
}

const request = (method: string, path: string, headers: Record<string, string> = {}, body = '') =>
  `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${Object.entries({
    ...headers,
    ...(body ? { 'Content-Length': String(Buffer.byteLength(body)) } : {}),
  })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n${body}`

async function startHost(kind: 'fast' | 'reference', limits: { maxConnections: number }) {
  const config = parseConfig({ dataDir: '/nonexistent-test-data', security: { authFailuresPerMinute: 1 } })
  const services = await buildServices({ config, clock: new ManualClock('2026-11-22T12:00:00Z'), log: memoryLogger('warn').log, inMemory: true })
  await services.radio.start()
  const router = buildRouter(manifest, services)
  const host = createHttpHost(router, services.log, {
    ...(kind === 'reference' ? { listener: fetchAdapter(router) } : {}),
    headersTimeoutMs: 300,
    requestTimeoutMs: 600,
    timeoutCheckIntervalMs: 100,
    limits,
  })
  const port = await host.listen(0, '127.0.0.1')
  const issue = async (name: string, scope: string) => {
    services.button.press()
    const answer = await exchange(port, request('GET', `/api/v2/accesstoken/generate?name=${name}&scope=${scope}`))
    return (JSON.parse(answer.body) as { token: { token: string } }).token.token
  }
  return {
    port,
    issue,
    close: async () => {
      await host.close(100)
      await services.radio.stop()
      await services.store.close()
      services.history.close()
    },
  }
}

for (const kind of ['fast', 'reference'] as const) {
  t.test(`${kind} host: every answer before a function runs is the documented one`, async (t) => {
    const gateway = await startHost(kind, { maxConnections: 2 })
    t.teardown(gateway.close)
    const admin = await gateway.issue('till', 'admin')
    const reader = await gateway.issue('screen', 'read')

    /** Provokes one answer, checks its status (and message), and validates it against the document. */
    const provoke = async (what: string, path: string, method: string, answer: RawAnswer, expected: { status: number; message?: string }) => {
      t.equal(answer.status, expected.status, `${what}: ${expected.status}`)
      if (expected.message) t.equal(JSON.parse(answer.body).message, expected.message, `${what}: the host's message`)
      t.equal(documentProblem({ method, path, ...answer }), undefined, `${what}: as the document says`)
    }
    const create = '/api/v2/activeorders'
    const json = { 'Content-Type': 'application/json', Authorization: `Bearer ${admin}` }

    // The host's own answers.
    await provoke(
      'a header line that does not parse',
      create,
      'POST',
      await exchange(gateway.port, `POST ${create} HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n`),
      {
        status: 400,
        message: hostRefusals.MalformedRequest.message,
      },
    )
    await provoke('headers that never end', create, 'POST', await exchange(gateway.port, `POST ${create} HTTP/1.1\r\nHost: x\r\n`), {
      status: 408,
      message: hostRefusals.RequestTimeout.message,
    })
    await provoke('headers over 16 KiB', create, 'GET', await exchange(gateway.port, request('GET', create, { 'X-Padding': 'x'.repeat(17 * 1024) })), {
      status: 431,
      message: hostRefusals.HeadersTooLarge.message,
    })

    // The router's, before the function: each documented for the operation (or, without one, the v2 envelope).
    await provoke('malformed JSON', create, 'POST', await exchange(gateway.port, request('POST', create, json, '{"name":')), { status: 400 })
    await provoke('a body over 16 KiB', create, 'POST', await exchange(gateway.port, request('POST', create, json, `{"x":"${'y'.repeat(17 * 1024)}"}`)), {
      status: 413,
    })
    await provoke('an unknown route', '/api/v2/nothing-here', 'GET', await exchange(gateway.port, request('GET', '/api/v2/nothing-here')), { status: 404 })
    await provoke('a method the path does not serve', '/api/v2/capabilities', 'PUT', await exchange(gateway.port, request('PUT', '/api/v2/capabilities')), {
      status: 404,
    })
    await provoke('no token', create, 'GET', await exchange(gateway.port, request('GET', create)), { status: 401 })
    await provoke(
      'a read token on a pos route',
      create,
      'POST',
      await exchange(gateway.port, request('POST', create, { ...json, Authorization: `Bearer ${reader}` }, '{"name":1}')),
      {
        status: 403,
      },
    )
    const bad = { Authorization: `Bearer ${'0'.repeat(48)}` }
    let limited: RawAnswer | undefined
    for (let attempt = 0; attempt < 5 && limited?.status !== 429; attempt++) limited = await exchange(gateway.port, request('GET', create, bad))
    await provoke('failed tokens past the address limit', create, 'GET', limited!, { status: 429 })

    // No connection place: both are held by authenticated keep-alive clients, which are never shed.
    const holders = await Promise.all(
      [0, 1].map(
        () =>
          new Promise<{ socket: net.Socket; text: () => string }>((resolve) => {
            let text = ''
            const socket = net.connect(gateway.port, '127.0.0.1', () =>
              socket.write(`GET ${create} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${admin}\r\n\r\n`),
            )
            socket.on('data', (chunk) => (text += chunk))
            resolve({ socket, text: () => text })
          }),
      ),
    )
    t.teardown(() => {
      for (const { socket } of holders) socket.destroy()
    })
    await until(() => holders.every(({ text }) => /\r\n\r\n\{.*\}$/s.test(text())), 'both holders answered')
    await provoke('no connection place left', create, 'GET', await exchange(gateway.port, request('GET', create, json)), {
      status: 503,
      message: hostRefusals.TooManyConnections.message,
    })
  })
}
