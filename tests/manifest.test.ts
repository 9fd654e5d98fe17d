import { readFileSync } from 'node:fs'
import t from 'tap'
import { manifest } from '../functions/_manifest.gen.ts'
import { checkManifest, expectedFileName } from '../runtime/manifest/manifest.ts'
import { generate, manifestFile } from '../runtime/manifest/manifest-gen.ts'
import { contract } from './contract/endpoints.ts'

t.test('the committed manifest is fresh', async (t) => {
  t.equal(readFileSync(manifestFile, 'utf8'), await generate(), 'stale manifest: run npm run gen')
})

t.test('every manifest route is in the contract with the same auth stance and code', async (t) => {
  for (const entry of manifest) {
    const row = contract.find((r) => r.method === entry.method && r.path === entry.path)
    if (!row) {
      t.fail(`${entry.method} ${entry.path} (${entry.file}) has no row in tests/contract/endpoints.ts`)
      continue
    }
    t.equal(entry.auth, row.auth, `${entry.method} ${entry.path} auth`)
    t.equal(entry.code, row.code, `${entry.method} ${entry.path} code`)
  }
})

t.test('every contract route is served', async (t) => {
  const served = new Set(manifest.map((e) => `${e.method} ${e.path}`))
  // The WebSocket route is served by the WS hub on the HTTP server's upgrade, not a function.
  for (const row of contract.filter((r) => r.auth !== 'first-frame')) {
    t.ok(served.has(`${row.method} ${row.path}`), `${row.method} ${row.path} is served`)
  }
})

t.test('checkManifest names each breach', async (t) => {
  const handler = true
  const problems = checkManifest([
    { file: 'v2/orders.get.ts', config: { method: 'GET', path: '/api/v2/orders', auth: 'bearer', summary: 'x' }, hasHandler: handler },
    { file: 'v1/orders.get.ts', config: { method: 'GET', path: '/api/v2/orders', auth: 'none', code: 8, summary: 'x' }, hasHandler: handler },
    { file: 'v2/orders.post.ts', config: { method: 'GET', path: '/api/v2/orders', auth: 'none', code: 8, summary: 'x' }, hasHandler: false },
    { file: 'v2/things.thing.get.ts', config: { method: 'GET', path: '/api/v2/things/:thing', auth: 'none', code: 8, summary: 'x' }, hasHandler: true },
    { file: 'v2/none.get.ts', config: undefined, hasHandler: false },
  ])
  const text = problems.join('\n')
  t.match(text, /v2\/orders\.get\.ts: v2 route needs a default code/)
  t.match(text, /v1\/orders\.get\.ts: path \/api\/v2\/orders does not belong to folder v1/)
  t.match(text, /v1\/orders\.get\.ts: v1 routes carry no returnCode/)
  t.match(text, /v2\/orders\.post\.ts: GET \/api\/v2\/orders must live in v2\/orders\.get\.ts/)
  t.match(text, /v2\/orders\.post\.ts: no default export handler/)
  t.match(text, /is already served by v2\/orders\.get\.ts/)
  t.match(text, /unknown path parameter :thing/)
  t.match(text, /v2\/none\.get\.ts: no exported config/)
})

t.test('checkManifest: a route that takes a token names its scope, an open one none', async (t) => {
  const problems = checkManifest([
    { file: 'v2/orders.get.ts', config: { method: 'GET', path: '/api/v2/orders', auth: 'bearer', code: 8, summary: 'x' }, hasHandler: true },
    { file: 'v1/orders.get.ts', config: { method: 'GET', path: '/api/v1/orders', auth: 'none', summary: 'x' }, hasHandler: true },
    {
      file: 'v2/capabilities.get.ts',
      config: { method: 'GET', path: '/api/v2/capabilities', auth: 'none', scope: 'read', code: 9, summary: 'x' },
      hasHandler: true,
    },
    {
      file: 'v2/floor.get.ts',
      config: { method: 'GET', path: '/api/v2/floor', auth: 'bearer', scope: 'root' as never, code: 9, summary: 'x' },
      hasHandler: true,
    },
    { file: 'v2/trackers.get.ts', config: { method: 'GET', path: '/api/v2/trackers', auth: 'bearer', scope: 'read', code: 9, summary: 'x' }, hasHandler: true },
    { file: 'v1/index.get.ts', config: { method: 'GET', path: '/api/v1', auth: 'none', summary: 'x' }, hasHandler: true },
  ])
  t.same(problems, [
    'v2/orders.get.ts: a route that takes a token must name its scope (read, screen, pos, admin)',
    'v1/orders.get.ts: a route that takes a token must name its scope (read, screen, pos, admin)',
    'v2/capabilities.get.ts: an open route names no scope (it takes no token)',
    'v2/floor.get.ts: unknown scope root (read, screen, pos, admin)',
  ])
  for (const entry of manifest)
    t.equal(checkManifest([{ file: entry.file, config: entry, hasHandler: true }]).length, 0, `${entry.file}: the manifest carries its scope`)
})

t.test('file names follow the route', async (t) => {
  t.equal(expectedFileName({ method: 'POST', path: '/api/v2/activeorders/:id/page' }), 'v2/activeorders.id.page.post.ts')
  t.equal(expectedFileName({ method: 'GET', path: '/api/v1' }), 'v1/index.get.ts')
})
