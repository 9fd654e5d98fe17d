// Every route with a token of every scope, through both hosts (the fast one and the
// @whatwg-node/server one, answer for answer). The routes come from the manifest, so a new
// route is walked the day it is added; what each scope may do comes from the table below,
// keyed by the scope the function declares: a denied call is 403 with -51 (v2) or the v1
// error shape, an allowed one is never 403. The issue's rulings on what a screen, a till and
// a read-only token may never do are checked against the declarations themselves.
import t, { type Test } from 'tap'
import { manifest } from '../../../functions/_manifest.gen.ts'
import { takesToken } from '../../../lib/api/function-config.ts'
import { type Scope, scopes } from '../../../lib/tokens/scopes.ts'
import type { ManifestEntry } from '../../../runtime/host/function-types.ts'
import { type Answer, twoHosts } from '../../helpers/two-hosts.ts'

/** Which token scopes a route declaring `scope` lets through. */
const allowedBy: Record<Scope, Scope[]> = {
  read: ['read', 'screen', 'pos', 'admin'],
  screen: ['screen', 'pos', 'admin'],
  pos: ['pos', 'admin'],
  admin: ['admin'],
}

const route = (entry: Pick<ManifestEntry, 'method' | 'path'>) => `${entry.method} ${entry.path}`

/** Bodies that get past parsing, so an allowed call is seen doing its work. */
const bodies: Record<string, unknown> = {
  'POST /api/v2/activeorders': { name: 12, orderType: 'TO_GO', locationName: 4 },
  'POST /api/v1/activeorders': { name: 13, locationName: 2 },
  'POST /api/v2/activeorders/:id/page': { tracking: false },
  'POST /api/v1/activeorders/:name/page': {},
  'POST /api/v2/gateway/settings': { targetTimeDefault: 240 },
  'POST /api/v2/repeaters/beginPairing': { timeout: 0 },
  'POST /api/v2/simulator/start': { tracker: 5 },
  'POST /api/v2/simulator/place': { tracker: 5, table: 3 },
  'POST /api/v2/simulator/clear': { tracker: 5 },
  'POST /api/v2/register': { http_client: 'not-a-url' },
  'POST /api/v2/floor': { columns: 1, rows: 1, tables: [] },
  'POST /api/v2/board/settings': { theme: 'light' },
  'POST /api/v2/board/screens/:name': { theme: 'light' },
}

t.test("the issue's rulings hold in what each function declares", async (t) => {
  const scoped = manifest.filter((entry) => takesToken(entry))
  for (const entry of manifest) {
    if (takesToken(entry)) t.ok(entry.scope && scopes.includes(entry.scope), `${route(entry)} names its scope`)
    else t.equal(entry.scope, undefined, `${route(entry)} is open and names none`)
  }
  // read: GET only (giving up one's own token, signing out, is the one exception).
  for (const entry of scoped.filter((e) => e.scope === 'read')) {
    t.ok(entry.method === 'GET' || route(entry) === 'DELETE /api/v2/accesstoken', `read can only read: ${route(entry)}`)
  }
  // screen: no settings, tokens, webhooks, radio, backups, clear-all (nor the cloud link or the clock);
  // a screen's own settings (/api/v2/board/settings) are its own, like signing itself out.
  const notForScreens =
    /\/gateway\/settings|\/board\/screens|\/accesstoken\/|\/register|\/radio|\/repeaters|\/backup|\/pairing\/approve|\/activate|\/clock|\/check$/
  const clearsAll = ['DELETE /api/v2/activeorders', 'DELETE /api/v2/trackers', 'DELETE /api/v2/repeaters']
  for (const entry of scoped.filter((e) => notForScreens.test(e.path) || clearsAll.includes(route(e)))) {
    t.notOk(allowedBy[entry.scope!].includes('screen'), `a screen may not ${route(entry)}`)
  }
  // screen: read orders, page, clear one, undo and recall, statistics, its own settings.
  for (const name of [
    'GET /api/v2/activeorders',
    'POST /api/v2/activeorders/:id/page',
    'DELETE /api/v2/activeorders/:id/page',
    'DELETE /api/v2/activeorders/:id',
    'POST /api/v2/activeorders',
    'GET /api/v2/orders',
    'GET /api/v2/statistics',
    'GET /api/v2/statistics/hourly',
    'POST /api/v2/orders/:uuid/recall',
    'GET /api/v2/board/settings',
    'POST /api/v2/board/settings',
  ]) {
    const entry = manifest.find((e) => route(e) === name)!
    t.ok(allowedBy[entry.scope!].includes('screen'), `a screen may ${name}`)
  }
  // pos: also clear every order and webhooks; never settings, tokens, radio.
  for (const name of ['DELETE /api/v2/activeorders', 'POST /api/v2/register', 'GET /api/v2/register', 'DELETE /api/v2/register', 'GET /api/v1/register']) {
    t.ok(allowedBy[manifest.find((e) => route(e) === name)!.scope!].includes('pos'), `a till may ${name}`)
  }
  for (const entry of scoped.filter((e) => /\/gateway\/settings|\/board\/screens|\/accesstoken\/|\/radio|\/repeaters/.test(e.path))) {
    t.notOk(allowedBy[entry.scope!].includes('pos'), `a till may not ${route(entry)}`)
  }
})

t.test('every route, every scope, both hosts: 403/-51 below the declared scope, never 403 at or above it', async (t) => {
  // v1 routes take a token only with Basic auth on; with it, they are walked like the rest.
  const hosts = await twoHosts('2026-11-22T12:00:00Z', { v1: { basicAuth: true } })
  t.teardown(() => hosts.close())
  const manager = await hosts.issueToken('manager')
  const asManager = { authorization: `Bearer ${manager}` }
  const json = { 'content-type': 'application/json' }
  await hosts.send('POST', '/api/v2/activeorders', { ...asManager, ...json }, JSON.stringify({ name: 7, orderType: 'TO_GO' }))
  await hosts.send('POST', '/api/v2/activeorders', { ...asManager, ...json }, JSON.stringify({ name: 8, orderType: 'TO_GO' }))
  const cleared = JSON.parse((await hosts.send('DELETE', '/api/v2/activeorders/8', asManager)).fast.body).activeorder.uuid as string

  const differences: string[] = []
  let walked = 0
  for (const entry of manifest) {
    const target = entry.path.replace(':uuid', cleared).replace(/:\w+/, '7')
    const body = bodies[route(entry)]
    for (const scope of scopes) {
      const minted = await hosts.send('POST', `/api/v2/accesstoken/generate?name=scope-test&scope=${scope}`, asManager)
      t.equal(minted.fast.status, 201, `a ${scope} token minted`)
      const token = (JSON.parse(minted.fast.body) as { token: { token: string } }).token.token
      const credential = entry.path.startsWith('/api/v1') ? `Basic ${Buffer.from(`${token}:`).toString('base64')}` : `Bearer ${token}`
      const headers = { authorization: credential, ...(body === undefined ? {} : json) }
      const { fast, reference } = await hosts.send(entry.method, target, headers, body === undefined ? undefined : JSON.stringify(body))
      walked++
      // Refusals byte for byte; a success by its status (it may carry measured or drawn values).
      if (fast.status !== reference.status || (fast.status >= 400 && fast.body !== reference.body)) {
        differences.push(`${route(entry)} as ${scope}: ${fast.status} ${fast.body.slice(0, 120)} ≠ ${reference.status} ${reference.body.slice(0, 120)}`)
      }
      const allowed = entry.scope === undefined || allowedBy[entry.scope].includes(scope)
      if (allowed) checkAllowed(t, entry, scope, fast)
      else checkDenied(t, entry, scope, fast)
      // Nothing this walk minted outlives its call: the scope-test token and any a call made.
      for (const name of ['scope-test', 'default']) await hosts.send('DELETE', `/api/v2/accesstoken?name=${name}`, asManager)
    }
  }
  t.same(differences, [], 'both hosts answered alike')
  t.equal(walked, manifest.length * scopes.length, `${walked} calls: every route with every scope`)
})

function checkDenied(t: Test, entry: ManifestEntry, scope: Scope, answer: Answer): void {
  const body = JSON.parse(answer.body) as { status: number; returnCode?: number; message: string }
  const v1 = entry.path.startsWith('/api/v1')
  const expected = v1 ? { status: 403, message: /scope does not allow this/ } : { status: 403, returnCode: -51, message: /scope does not allow this/ }
  t.equal(answer.status, 403, `${route(entry)} (needs ${entry.scope}) refuses ${scope}`)
  t.match(body, expected, `${route(entry)}: the ${v1 ? 'v1' : 'v2'} refusal`)
  if (v1) t.notOk('returnCode' in body, 'v1 carries no returnCode')
}

function checkAllowed(t: Test, entry: ManifestEntry, scope: Scope, answer: Answer): void {
  // An open button route answers 403/-3 to everybody outside the button window: not a scope refusal.
  // A text answer (GET /api/v2/metrics) is no envelope: its status says it all.
  const body = (entry.contentType ? {} : JSON.parse(answer.body)) as { returnCode?: number }
  const buttonClosed = entry.auth === 'button' && body.returnCode === -3
  t.ok(
    answer.status !== 403 || buttonClosed,
    `${route(entry)} (needs ${entry.scope ?? 'nothing'}) lets ${scope} through (${answer.status} ${answer.body.slice(0, 80)})`,
  )
}
