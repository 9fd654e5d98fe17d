// The dispatcher runs itty-router's compiled routes with itty's own rules; each case here is
// also checked against itty's Router.fetch on the same table, so the two cannot drift apart.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { Router } from 'itty-router'
import t from 'tap'
import { answersAlways, createDispatcher, routingPath } from '../../../runtime/host/dispatch.ts'
import { NodeRequest } from '../../../runtime/host/node-request.ts'

function table() {
  const router = Router()
  const said = (what: string) => (request: { params: Record<string, string> }) => new Response(`${what} ${JSON.stringify(request.params)}`)
  router.get('/items/:id', said('item'))
  router.get('/items/new', said('new (shadowed by /items/:id)'))
  router.get('/plain', () => undefined, said('plain after a pass'))
  router.get('/plain', said('second plain'))
  router.post('/plain', said('posted'))
  router.all('/any', said('any method'))
  router.get('/files/*', said('files'))
  router.all('*', said('fallback'))
  return router
}

const paths = [
  ['GET', '/items/7'],
  ['GET', '/items/new'],
  ['GET', '/plain'],
  ['GET', '/plain///'],
  ['POST', '/plain'],
  ['DELETE', '/any'],
  ['GET', '/files/a/b.txt'],
  ['GET', '/nothing'],
  ['GET', '/x/../plain'],
  ['GET', '/PLAIN'],
  ['GET', '/plain%2F'],
  ['GET', '/'],
]

t.test('answers exactly as itty-router would, for fetch Requests and for node requests', async (t) => {
  const router = table()
  const dispatch = createDispatcher(router.routes)
  for (const [method, path] of paths) {
    const expected = await (await router.fetch(new Request(`http://gateway.test${path}`, { method }))).text()
    const fromFetch = await dispatch(new Request(`http://gateway.test${path}`, { method }))
    t.equal(await fromFetch?.text(), expected, `${method} ${path} (fetch Request)`)
    const raw = { method, url: path, headers: { host: 'gateway.test' } } as unknown as IncomingMessage
    const fromNode = await dispatch(new NodeRequest(raw, {} as ServerResponse) as unknown as Request)
    t.equal(await fromNode?.text(), expected, `${method} ${path} (node request)`)
  }
})

t.test('no route at all: undefined, as itty-router gives', async (t) => {
  const router = Router()
  router.get('/only', () => new Response('only'))
  t.equal(await createDispatcher(router.routes)(new Request('http://gateway.test/other')), undefined)
})

t.test('the raw path is used only where URL parsing could not change it', async (t) => {
  const node = (url: string) =>
    new NodeRequest({ method: 'GET', url, headers: { host: 'gateway.test' } } as unknown as IncomingMessage, {} as ServerResponse) as unknown as Request
  t.equal(routingPath(node('/api/v2/activeorders?x=1')), '/api/v2/activeorders')
  t.equal(routingPath(node('/api/v2/./orders')), '/api/v2/orders')
  t.equal(routingPath(node('/a b')), '/a%20b')
  t.equal(routingPath(new Request('http://gateway.test/api/v2/../v1')), '/api/v1')
})

t.test('a route whose one handler always answers: its promise is the answer (issue 30)', async (t) => {
  const router = Router()
  const answer = new Response('answered')
  router.get(
    '/always',
    answersAlways(async () => answer),
  )
  router.get(
    '/refuses',
    answersAlways(() => Promise.reject(new Error('refused'))),
  )
  router.get(
    '/twice',
    answersAlways(async () => new Response('first')),
    async () => new Response('second'),
  )
  router.all('*', () => new Response('fallback'))
  const dispatch = createDispatcher(router.routes)
  t.equal(await dispatch(new Request('http://gateway.test/always')), answer)
  t.equal(await dispatch(new Request('http://gateway.test/always/')), answer, 'trailing slash as itty tolerates it')
  await t.rejects(dispatch(new Request('http://gateway.test/refuses')), /refused/, 'a refusal is the rejection')
  t.equal(await (await dispatch(new Request('http://gateway.test/twice')))!.text(), 'first', 'more than one handler: run in turn')
  t.equal(await (await dispatch(new Request('http://gateway.test/other')))!.text(), 'fallback')
})

t.test('handlers that pass the request on: promises and plain values, null counts as nothing', async (t) => {
  const router = Router()
  router.get(
    '/chain',
    () => Promise.resolve(null),
    () => undefined,
    async () => new Response('third'),
  )
  router.get(
    '/thenable',
    // biome-ignore lint/suspicious/noThenProperty: a handler answering a thenable is the case tested
    () => ({ then: (resolve: (value: unknown) => void) => resolve(undefined) }),
    () => new Response('after a thenable'),
  )
  router.get('/none', () => null)
  const dispatch = createDispatcher(router.routes)
  t.equal(await (await dispatch(new Request('http://gateway.test/chain')))!.text(), 'third')
  t.equal(await (await dispatch(new Request('http://gateway.test/thenable')))!.text(), 'after a thenable')
  t.equal(await dispatch(new Request('http://gateway.test/none')), undefined)
})

t.test('a request whose URL cannot be parsed is a rejection, not a throw', async (t) => {
  const dispatch = createDispatcher(Router().routes)
  const broken = { method: 'GET', url: 'not a url' } as Request
  await t.rejects(dispatch(broken), TypeError)
})
