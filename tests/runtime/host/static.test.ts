import { mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { checkFetchAnswers } from '../../helpers/documented-responses.ts'
import { parseConfig } from '../../../lib/config.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { startCheckedGateway } from '../../helpers/checked-gateway.ts'
import { resolveAsset, staticRoutes } from '../../../runtime/host/static.ts'
import { testGateway } from '../../helpers/gateway.ts'

t.test('the board, the docs page and their assets through the router', async (t) => {
  const gw = await testGateway()

  const board = await gw.call('GET /')
  t.equal(board.status, 200)
  t.match(board.headers.get('content-type'), /^text\/html; charset=utf-8/)
  t.match(await board.text(), /<title[^>]*>Order board/)
  t.match(board.headers.get('content-security-policy'), /default-src 'self'/, 'pages may load only their own origin')
  t.equal(board.headers.get('cache-control'), 'no-cache')
  const etag = board.headers.get('etag')
  t.match(etag, /^"[\w-]+"$/)

  const again = await gw.call('GET /', { headers: { 'if-none-match': etag! } })
  t.equal(again.status, 304, 'a matching ETag is not sent again')
  t.equal(await again.text(), '')

  const docs = await gw.call('GET /docs')
  t.equal(docs.status, 200)
  t.match(await docs.text(), /docs\.js/)

  const script = await gw.call('GET /assets/app.js')
  t.equal(script.status, 200)
  t.equal(script.headers.get('content-type'), 'text/javascript; charset=utf-8')
  t.equal(script.headers.get('x-content-type-options'), 'nosniff')
  t.match(await script.text(), /connectFeed/)

  const nested = await gw.call('GET /assets/board/feed.js')
  t.equal(nested.status, 200, 'modules in sub-folders are served')

  const css = await gw.call('GET /assets/styles.css')
  t.equal(css.headers.get('content-type'), 'text/css; charset=utf-8')

  const icon = await gw.call('GET /assets/favicon.svg')
  t.equal(icon.headers.get('content-type'), 'image/svg+xml')
})

t.test('the OpenAPI document is served as JSON with an ETag', async (t) => {
  const gw = await testGateway()
  const response = await gw.call('GET /api/openapi.json')
  t.equal(response.status, 200)
  t.equal(response.headers.get('content-type'), 'application/json; charset=utf-8')
  const doc = await response.json()
  t.equal(doc.openapi, '3.1.0')
  t.ok(doc.paths['/api/v2'], 'manifest routes are in it')
  const etag = response.headers.get('etag')!
  t.equal((await gw.call('GET /api/openapi.json', { headers: { 'if-none-match': etag } })).status, 304)
})

t.test('paths that leave web/, hidden files and unknown types are not found (-5)', async (t) => {
  const gw = await testGateway()
  for (const target of [
    '/assets/%2e%2e/package.json',
    '/assets/..%2fpackage.json',
    '/assets/..%5cpackage.json',
    '/assets/board/%2e%2e/%2e%2e/package.json',
    '/assets/%00app.js',
    '/assets/.gitignore',
    '/assets/missing.js',
    '/assets/',
    '/assets/%E0%A4%A.js',
  ]) {
    const { status, body } = await gw.json(`GET ${target}`)
    t.equal(status, 404, target)
    t.equal(body.returnCode, -5, target)
  }
  // An empty segment is refused before any route reads the path (lib/api/request-path.ts).
  t.match(await gw.json('GET /assets//app.js'), { status: 400, body: { returnCode: -49 } })
})

t.test('only GET serves the board; other paths still answer the v2 404', async (t) => {
  const gw = await testGateway()
  t.same((await gw.json('POST /')).body.returnCode, -5)
  t.same((await gw.json('DELETE /assets/app.js')).body.returnCode, -5)
  t.same((await gw.json('GET /nothing-here')).body, { status: 404, returnCode: -5, message: 'Route not found' })
  t.same((await gw.json('GET /api/v1/nothing')).body, { status: 404, message: 'Route not found' })
})

t.test('resolveAsset refuses symlinks out of the web root and unknown types', async (t) => {
  const dir = t.testdir({ web: { 'page.html': '<p>hi</p>', 'notes.txt': 'x', sub: { 'a.js': 'export {}' } }, 'secret.js': 'secret' })
  const root = path.join(dir, 'web')
  symlinkSync(path.join(dir, 'secret.js'), path.join(root, 'link.js'))
  t.ok(await resolveAsset(root, 'page.html'))
  t.ok(await resolveAsset(root, 'sub/a.js'))
  t.equal(await resolveAsset(root, 'link.js'), undefined, 'symlink pointing outside')
  t.equal(await resolveAsset(root, 'notes.txt'), undefined, 'type not served')
  t.equal(await resolveAsset(root, '../secret.js'), undefined)
  t.equal(await resolveAsset(root, 'sub'), undefined)
})

t.test('an edited file is served fresh with a new ETag', async (t) => {
  const dir = t.testdir({ 'index.html': '<p>one</p>', 'docs.html': '<p>docs</p>' })
  const serve = staticRoutes([], { webRoot: dir })
  const first = (await serve(new Request('http://gw.test/')))!
  t.equal(await first.text(), '<p>one</p>')
  writeFileSync(path.join(dir, 'index.html'), '<p>two, longer</p>')
  utimesSync(path.join(dir, 'index.html'), new Date(), new Date(Date.now() + 5000))
  const second = (await serve(new Request('http://gw.test/')))!
  t.equal(await second.text(), '<p>two, longer</p>')
  t.not(second.headers.get('etag'), first.headers.get('etag'))
  t.equal(await serve(new Request('http://gw.test/elsewhere')), undefined, 'other paths fall through')
  mkdirSync(path.join(dir, 'folder.js'))
  t.equal(await serve(new Request('http://gw.test/assets/folder.js')), undefined, 'a folder is not a file')
})

t.test('HEAD answers like GET without a body, over real HTTP', async (t) => {
  checkFetchAnswers(t)
  const config = parseConfig({ port: 0, host: '127.0.0.1', dataDir: t.testdir({}), mdns: { enabled: false } })
  const gateway = await startCheckedGateway({ config, log: memoryLogger('warn').log })
  t.teardown(() => gateway.stop())
  for (const route of ['/', '/docs', '/assets/app.js', '/api/openapi.json']) {
    const get = await fetch(`http://127.0.0.1:${gateway.port}${route}`)
    const body = await get.arrayBuffer()
    const head = await fetch(`http://127.0.0.1:${gateway.port}${route}`, { method: 'HEAD' })
    t.equal(head.status, 200, `HEAD ${route}`)
    t.equal(head.headers.get('content-type'), get.headers.get('content-type'))
    t.equal(head.headers.get('etag'), get.headers.get('etag'))
    t.equal(head.headers.get('content-length'), String(body.byteLength), 'the length GET would send')
    t.equal((await head.arrayBuffer()).byteLength, 0, 'no body')
  }
  const conditional = await fetch(`http://127.0.0.1:${gateway.port}/`, {
    method: 'HEAD',
    headers: { 'if-none-match': (await fetch(`http://127.0.0.1:${gateway.port}/`)).headers.get('etag')! },
  })
  t.equal(conditional.status, 304)
  t.equal((await fetch(`http://127.0.0.1:${gateway.port}/nothing-here`, { method: 'HEAD' })).status, 404)
})

t.test("the OpenAPI document's builder is imported on the first GET /api/openapi.json, not with the host", async (t) => {
  const { execFileSync } = await import('node:child_process')
  const staticModule = new URL('../../../runtime/host/static.ts', import.meta.url).href
  // A child process (a fresh module cache) reports when lib/openapi/document.ts is loaded.
  const script = `
    import { registerHooks } from 'node:module'
    let loaded = false
    registerHooks({ load(url, context, next) { if (url.endsWith('/lib/openapi/document.ts')) loaded = true; return next(url, context) } })
    const { staticRoutes } = await import(${JSON.stringify(staticModule)})
    const serve = staticRoutes([])
    const before = loaded
    const answer = await serve(new Request('http://gateway.test/api/openapi.json'))
    console.log(JSON.stringify({ before, after: loaded, status: answer.status, openapi: JSON.parse(await answer.text()).openapi }))
  `
  const out = execFileSync(process.execPath, ['--disable-warning=ExperimentalWarning', '--input-type=module', '-e', script], { encoding: 'utf8' })
  t.match(JSON.parse(out), { before: false, after: true, status: 200, openapi: /^3\./ })
})
