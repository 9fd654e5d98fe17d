// The router without a socket: version-aware 404s, body parsing and limits on fetch
// Requests, the one place errors become envelopes, the per-request log line, and the
// JsonResponse it answers with behaving as a fetch Response.
import t from 'tap'
import type { ManifestEntry } from '../../../runtime/host/function-types.ts'
import { buildRouter } from '../../../runtime/host/router.ts'
import { testGateway } from '../../helpers/gateway.ts'
import { testEntry } from '../../helpers/manifest.ts'

const entry = testEntry

const manifest: ManifestEntry[] = [
  entry('v2/echo.post.ts', 'POST', '/api/v2/echo', async (_request, ctx) => ctx.ok({ got: await ctx.body() })),
  entry('v1/echo.post.ts', 'POST', '/api/v1/echo', async (_request, ctx) => ctx.ok({ got: await ctx.body() })),
  entry('v2/boom.get.ts', 'GET', '/api/v2/boom', async () => {
    throw new Error('secret internals at /srv/gateway/db.ts:12')
  }),
  entry('v2/whoami.id.get.ts', 'GET', '/api/v2/whoami/:id', async (request, ctx) =>
    ctx.ok(
      { ip: ctx.caller.ip, id: ctx.params.id, q: ctx.query.getAll('q'), agent: request.headers.get('user-agent') },
      { outcome: undefined, status: 201, headers: { 'X-Extra': 'yes' } },
    ),
  ),
]

async function setup() {
  const gw = await testGateway()
  const router = buildRouter(manifest, gw.services)
  // A string body would otherwise be sent as text/plain, which the gateway refuses (415).
  const call = (method: string, path: string, init: RequestInit = {}, serverContext?: object) =>
    router.fetch(
      new Request(`http://gateway.test${path}`, { method, ...init, headers: { 'content-type': 'application/json', ...init.headers } }),
      serverContext,
    )
  const requestLines = async () => gw.logs.lines().filter((line) => line.msg === 'request')
  return { gw, call, requestLines }
}

t.test('unknown routes answer 404 in the shape of their API version', async (t) => {
  const { call } = await setup()
  const v2 = await call('GET', '/api/v2/nothing-here')
  t.equal(v2.status, 404)
  t.same(await v2.json(), { status: 404, returnCode: -5, message: 'Route not found' })
  const v1 = await call('GET', '/api/v1/nothing-here')
  t.equal(v1.status, 404)
  t.same(await v1.json(), { status: 404, message: 'Route not found' }, 'v1 carries no returnCode')
  const known = await call('DELETE', '/api/v2/echo')
  t.equal(known.status, 404, 'an unserved method on a served path is not found either')
  t.equal(((await known.json()) as any).returnCode, -5)
})

t.test('bodies: parsed JSON objects, -31 for malformed JSON, -35 above 16 KiB', async (t) => {
  const { call } = await setup()
  const ok = await call('POST', '/api/v2/echo', { body: JSON.stringify({ name: '12' }) })
  t.equal(ok.status, 200)
  t.same(await ok.json(), { status: 200, returnCode: 42, got: { name: '12' } })
  t.same(((await (await call('POST', '/api/v2/echo')).json()) as any).got, {}, 'an empty body is an empty object')

  const bad = await call('POST', '/api/v2/echo', { body: '{"name": ' })
  t.equal(bad.status, 400)
  t.equal(((await bad.json()) as any).returnCode, -31)
  const badV1 = await call('POST', '/api/v1/echo', { body: '[1,2]' })
  t.equal(badV1.status, 400)
  t.notOk('returnCode' in ((await badV1.json()) as object))

  const big = JSON.stringify({ name: 'x'.repeat(17 * 1024) })
  const declared = await call('POST', '/api/v2/echo', { body: big })
  t.equal(declared.status, 413)
  t.same(await declared.json(), { status: 413, returnCode: -35, message: 'Request body is larger than 16 KiB' })

  // Without a declared length the limit holds while reading.
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < 20; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(1024)))
      controller.close()
    },
  })
  const streamed = await call('POST', '/api/v2/echo', { body: stream, duplex: 'half' } as RequestInit)
  t.equal(streamed.status, 413)
  t.equal(((await streamed.json()) as any).returnCode, -35)
})

t.test('an unexpected error is logged and answered 500 -99 without details', async (t) => {
  const { gw, call } = await setup()
  const response = await call('GET', '/api/v2/boom')
  t.equal(response.status, 500)
  const text = await response.text()
  t.same(JSON.parse(text), { status: 500, returnCode: -99, message: 'Internal error' })
  t.notMatch(text, /secret|srv|\bat\b/, 'no message, path or stack reaches the client')
  const logged = gw.logs.lines().find((line) => line.msg === 'unexpected error')
  t.ok(logged, 'the error is logged')
  t.match((logged as any).err.message, /secret internals/)
  t.equal(logged!.level, 50)
})

t.test('context: params, query, caller address and success options', async (t) => {
  const { call } = await setup()
  const fromLan = await call('GET', '/api/v2/whoami/7?q=a&q=b', { headers: { 'user-agent': 'kds' } }, { req: { socket: { remoteAddress: '10.1.2.3' } } })
  t.equal(fromLan.status, 201)
  t.equal(fromLan.headers.get('x-extra'), 'yes')
  t.equal(fromLan.headers.get('content-type'), 'application/json; charset=utf-8')
  t.same(await fromLan.json(), { status: 201, returnCode: 42, ip: '10.1.2.3', id: '7', q: ['a', 'b'], agent: 'kds' })

  const withSocket = await call('GET', '/api/v2/whoami/8', {}, { req: { socket: { remoteAddress: '::ffff:192.168.1.20' } } })
  t.equal(((await withSocket.json()) as any).ip, '192.168.1.20', 'an IPv4-mapped socket address is shown as IPv4')
  const local = await call('GET', '/api/v2/whoami/9', { headers: { 'x-test-client-ip': '10.1.2.3' } })
  t.equal(((await local.json()) as any).ip, '127.0.0.1', 'no socket: the local host; no header names another address')
})

t.test('one structured log line per request', async (t) => {
  const { call, requestLines } = await setup()
  await call('GET', '/api/v2/whoami/1?secret=x')
  await call('GET', '/api/v1/missing')
  await call('POST', '/api/v2/echo', { body: '{' })
  const lines = await requestLines()
  t.equal(lines.length, 3)
  t.match(lines[0], { level: 30, service: 'tracker-gateway', method: 'GET', path: '/api/v2/whoami/1', status: 201, msg: 'request' })
  t.notMatch(JSON.stringify(lines[0]), /secret/, 'the query string is not logged')
  t.match(lines[1], { method: 'GET', path: '/api/v1/missing', status: 404 })
  t.match(lines[2], { method: 'POST', path: '/api/v2/echo', status: 400 })
  for (const line of lines) {
    t.type(line.ms, 'number')
    t.ok(!Number.isNaN(Date.parse(line.time as string)), 'time is an ISO date')
  }
})

t.test('no request line below level info', async (t) => {
  const { gw, call, requestLines } = await setup()
  gw.services.log.level = 'warn'
  await call('GET', '/api/v2/whoami/1')
  t.equal((await requestLines()).length, 0)
})

t.test('the JSON answer is a fetch Response in every respect', async (t) => {
  const { call } = await setup()
  const response = await call('GET', '/api/v2/whoami/3')
  t.ok(response instanceof Response)
  t.equal(response.ok, true)
  const copy = response.clone()
  t.same(await copy.json(), await response.json(), 'clone() and json() both work')
  const again = await call('GET', '/api/v2/whoami/4')
  const text = await new Response(again.body).text()
  t.match(text, /"id":"4"/, 'the body is a readable stream too')
  t.equal(again.bodyUsed, true)
})
