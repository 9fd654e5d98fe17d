// The default check of answers from the servers a test starts (checked-origins.ts) can fail,
// and checks only what it should: a registered origin's /api/ answers, against that origin's
// document (the gateway's or HQ's), until it is unregistered; uncheckedFetch needs a reason.
import http from 'node:http'
import t from 'tap'
import { checkAnswer, checkAnswersFrom, takeProblems, uncheckedFetch } from './checked-origins.ts'
import { hqDescribedApi } from './hq-documented.ts'

/** A server answering each path with the body given for it (JSON, status in the body). */
async function serve(bodies: Record<string, { status: number; body: unknown }>) {
  const server = http.createServer((request, response) => {
    const answer = bodies[(request.url ?? '').split('?')[0]!] ?? { status: 404, body: { status: 404, returnCode: -5, message: 'Route not found' } }
    response.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(answer.body))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => server.close(resolve)))
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`
}

const wrongList = { status: 200, body: { status: 200, returnCode: 5 } } // GET /api/v2/activeorders lacks count and items

t.test("a registered gateway's answer outside the document fails the fetch; others are left alone", async (t) => {
  const base = await serve({ '/api/v2/activeorders': wrongList, '/hooks/order': { status: 200, body: { anything: true } } })
  t.equal((await fetch(`${base}/api/v2/activeorders`)).status, 200, 'not registered: not checked')
  const unregister = checkAnswersFrom(base)
  await t.rejects(fetch(`${base}/api/v2/activeorders`), /Answer outside the OpenAPI document \(gateway\): GET \/api\/v2\/activeorders 200 does not match/)
  await t.rejects(fetch(`http://localhost:${new URL(base).port}/api/v2/activeorders`), /outside the OpenAPI document/, 'localhost is the same origin')
  t.equal(takeProblems().length, 2, 'each is also kept for the exit report (taken here, so this file passes)')
  t.equal((await fetch(`${base}/hooks/order`)).status, 200, 'a path outside the API is not checked')
  t.equal((await fetch(`${base}/api/v2/nothing`)).status, 404, 'a documented error answer passes')
  t.equal((await uncheckedFetch('this test reads the wrong list on purpose')(`${base}/api/v2/activeorders`)).status, 200, 'uncheckedFetch skips it')
  t.throws(() => uncheckedFetch(''), /needs the reason/)
  t.throws(
    () => checkAnswer(`${base}/api/v2/activeorders`, { method: 'GET', status: 200, contentType: 'application/json', body: '{"status":200,"returnCode":5}' }),
    /outside the OpenAPI document \(gateway\)/,
    'checkAnswer holds an answer read otherwise (node:http, a namespace client) the same way',
  )
  takeProblems()
  unregister()
  t.equal((await fetch(`${base}/api/v2/activeorders`)).status, 200, 'unregistered (the server stopped): not checked')
  t.same(takeProblems(), [])
})

t.test("an HQ origin is held to HQ's document", async (t) => {
  const base = await serve({
    '/api/hq/sites': { status: 200, body: { status: 200, returnCode: 2, sites: [] } },
    '/api/hq/alerts': { status: 200, body: { status: 200, returnCode: 99 } },
  })
  const problems: string[] = []
  t.teardown(checkAnswersFrom(base, hqDescribedApi, (problem) => problems.push(problem)))
  await fetch(`${base}/api/hq/sites`)
  t.same(problems, [], "an answer as HQ's document says")
  await fetch(`${base}/api/hq/alerts`)
  t.match(problems, [/Answer outside the OpenAPI document \(hq\): GET \/api\/hq\/alerts 200 does not match/])
  await fetch(`${base}/api/hq/nowhere`)
  t.equal(problems.length, 1, 'an unknown HQ path may answer the HQ error envelope')
})
