// NodeRequest over a node request: the plain fields, the URL built when asked for, headers
// read without copying whatever the case of the name asked for; a body streamed to a sink
// one piece at a time, cut short past its limit.
import { randomBytes } from 'node:crypto'
import http, { type IncomingMessage, type ServerResponse } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { NodeRequest } from '../../../runtime/host/node-request.ts'
import { caRequest } from '../../helpers/ca-request.ts'

function nodeRequest(url: string, headers: Record<string, string | string[]>): NodeRequest {
  return new NodeRequest({ method: 'GET', url, headers } as unknown as IncomingMessage, {} as ServerResponse)
}

t.test('the absolute URL is built on first use, from a plausible Host or localhost (issue 30)', async (t) => {
  const request = nodeRequest('/api/v2/orders?limit=5', { host: 'gateway.local:8000' })
  t.equal(request.pathname, '/api/v2/orders')
  t.equal(request.search, '?limit=5')
  t.equal(request.url, 'http://gateway.local:8000/api/v2/orders?limit=5')
  t.equal(request.url, request.url, 'the same text again')
  t.equal(nodeRequest('/x', { host: 'bad host/' }).url, 'http://localhost/x')
  t.equal(nodeRequest('/x', {}).url, 'http://localhost/x')
  t.equal(nodeRequest('http://other.example/y?z=1', { host: 'gateway.local' }).url, 'http://gateway.local/y?z=1', 'absolute-form target: its path and query')
  t.ok(request instanceof Request)
})

t.test('header names are matched in any case, many names included', async (t) => {
  const request = nodeRequest('/', { 'content-type': 'application/json', 'x-list': ['a', 'b'] })
  t.equal(request.headers.get('Content-Type'), 'application/json')
  t.equal(request.headers.get('content-type'), 'application/json')
  t.equal(request.headers.get('X-LIST'), 'a, b')
  t.equal(request.headers.has('CONTENT-TYPE'), true)
  t.equal(request.headers.get('Origin'), null)
  for (let index = 0; index < 300; index++) t.equal(request.headers.get(`X-Name-${index}`), null)
  t.equal(request.headers.get('Content-Type'), 'application/json', 'still right after the remembered names were emptied')
})

t.test('streamBody: one piece at a time as the sink takes them, its size, undefined past the limit', async (t) => {
  let received: Buffer[] = []
  let busy = 0
  let overlapped = false
  const server = http.createServer((req, res) => {
    received = []
    new NodeRequest(req, res)
      .streamBody(Number(req.headers['x-limit']), async (chunk) => {
        if (busy++) overlapped = true
        // A slow sink (a disk): the next piece waits for it.
        await sleep(1)
        received.push(chunk)
        busy--
      })
      .then(
        (size) => res.end(JSON.stringify({ size: size ?? null, connection: res.getHeader('connection') ?? null })),
        (error: Error) => res.end(JSON.stringify({ error: error.message })),
      )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => server.close(resolve)))
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`
  const body = randomBytes(1_000_000)
  t.same((await caRequest(url, { method: 'POST', headers: { 'x-limit': '1000000' }, body })).json(), { size: 1_000_000, connection: null })
  t.ok(Buffer.concat(received).equals(body), 'every byte, in order')
  t.ok(received.length > 1, `in pieces (${received.length})`)
  t.notOk(overlapped, 'never two pieces in the sink at once')
  t.same((await caRequest(url, { method: 'POST', headers: { 'x-limit': '500000' }, body: body.subarray(0, 600_000) })).json(), {
    size: null,
    connection: 'close',
  })
  t.ok(Buffer.concat(received).length <= 500_000, 'nothing past the limit reaches the sink')
})
