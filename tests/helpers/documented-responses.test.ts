// The check every in-process answer goes through (documented-responses.ts) can fail: an answer
// that leaves the document is reported with its route template, status and the schema error,
// and a router that gives one makes the test's call throw.
import t from 'tap'
import { checkedRouter, documentProblem, serverFrameProblem, type CheckedAnswer } from './documented-responses.ts'
import { testGateway } from './gateway.ts'

const gw = await testGateway()
const token = await gw.issueToken()
await gw.json('POST /api/v2/activeorders', { token, body: { name: 4711, orderType: 'TO_GO' } })

async function answerOf(route: string): Promise<CheckedAnswer> {
  const [method, path] = route.split(' ') as [string, string]
  const response = await gw.call(route, { token })
  return { method, path, status: response.status, contentType: response.headers.get('content-type'), body: await response.text() }
}

t.test('a real answer conforms; the same answer with a required field taken out does not', async (t) => {
  const answer = await answerOf('GET /api/v2/activeorders/4711')
  t.equal(answer.status, 200)
  t.equal(documentProblem(answer), undefined, 'the templated path /api/v2/activeorders/{id} is found and its 200 schema holds')
  const body = JSON.parse(answer.body)
  delete body.activeorder.orderType
  const problem = documentProblem({ ...answer, body: JSON.stringify(body) })
  t.match(problem, /^GET \/api\/v2\/activeorders\/\{id\} 200 does not match the document: .*orderType/)
})

t.test('a wrong returnCode, an undocumented status and a wrong content type are reported', async (t) => {
  const answer = await answerOf('GET /api/v2/activeorders')
  const body = JSON.parse(answer.body)
  t.match(documentProblem({ ...answer, body: JSON.stringify({ ...body, returnCode: 1 }) }), /GET \/api\/v2\/activeorders 200 does not match.*returnCode/)
  t.match(documentProblem({ ...answer, status: 418 }), /GET \/api\/v2\/activeorders: status 418 is not documented/)
  t.match(documentProblem({ ...answer, contentType: 'text/plain' }), /content type text\/plain where the document says application\/json/)
})

t.test('an error answer is held to the route error schema', async (t) => {
  const answer = await answerOf('GET /api/v2/activeorders/nope!')
  t.equal(answer.status, 400)
  t.equal(documentProblem(answer), undefined)
  const body = JSON.parse(answer.body)
  t.match(documentProblem({ ...answer, body: JSON.stringify({ ...body, returnCode: -999 }) }), /400 does not match the document/)
  t.match(documentProblem({ ...answer, body: JSON.stringify({ ...body, status: 200 }) }), /400 does not match the document/)
})

t.test('a path no operation has may only answer with its version error envelope', async (t) => {
  const answer = await answerOf('GET /api/v2/nowhere')
  t.equal(answer.status, 404)
  t.equal(documentProblem(answer), undefined)
  t.match(documentProblem({ ...answer, status: 200 }), /no documented operation\): answered 200/)
  t.match(documentProblem({ ...answer, body: '{"status":404}' }), /does not match the document/)
  const v1 = await answerOf('PUT /api/v1/activeorders')
  t.equal(documentProblem(v1), undefined, 'v1 answers with its own envelope')
})

t.test('a router that answers outside the document fails the call that received it', async (t) => {
  const router = checkedRouter({ fetch: async (_request: Request) => Response.json({ status: 200, returnCode: 1 }) })
  await t.rejects(
    router.fetch(new Request('http://gateway.test/api/v2/activeorders')),
    /Answer outside the OpenAPI document \(gateway\): GET \/api\/v2\/activeorders 200/,
  )
})

t.test('a WebSocket frame outside the documented frames is reported', async (t) => {
  const active = (await gw.json('GET /api/v2/activeorders', { token })).body.items
  const snapshot = { type: 'ACTIVE_ORDERS', count: active.length, items: active, seq: 3 }
  t.equal(serverFrameProblem(snapshot), undefined, 'a snapshot of the real active orders conforms')
  t.match(serverFrameProblem({ ...snapshot, seq: undefined }), /\(ws WsActiveOrdersFrame\).*seq/)
  const change = { ...active[0], type: 'ORDER_PAGED', seq: 4 }
  t.equal(serverFrameProblem(change), undefined)
  t.match(serverFrameProblem({ ...change, type: 'ORDER_EATEN' }), /\(ws WsOrderChangeFrame\)/)
  t.equal(serverFrameProblem({ status: 401, returnCode: -2, message: 'x' }), undefined)
  t.equal(serverFrameProblem({ status: 503, message: 'Too many WebSocket clients' }), undefined, 'the place refusal, as the upgrade refusal')
  t.match(serverFrameProblem({ status: 404, returnCode: -5, message: 'x' }), /\(ws error frame\)/, 'a status the feed does not send')
  t.match(serverFrameProblem({ status: 503, returnCode: -5, message: 'x' }), /\(ws error frame\)/)
})
