// NodeRequest over a node request: the plain fields, the URL built when asked for, headers
// read without copying whatever the case of the name asked for.
import type { IncomingMessage, ServerResponse } from 'node:http'
import t from 'tap'
import { NodeRequest } from '../../../runtime/host/node-request.ts'

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
