// `gateway new endpoint` on a copy of the project: the function file, its test, its contract
// row and the manifest entry are written and work together; bad input is one line, nothing written.
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { manifest } from '../../../functions/_manifest.gen.ts'
import { copyProject } from '../../helpers/project-copy.ts'
import { runCli } from '../../helpers/process.ts'
import { newCliCommand, newEndpoint } from '../../../runtime/manifest/new-endpoint.ts'

// A resource no route has yet gets the code above every code in use.
const nextCode = Math.max(...manifest.map((e) => e.code ?? 0)) + 1

t.test('new endpoint GET /api/v2/things/:id writes a working endpoint', async (t) => {
  const project = copyProject()
  t.teardown(() => project.remove())
  const result = await runCli(['new', 'endpoint', 'GET', '/api/v2/things/:id'], {}, { cli: project.cli })
  t.equal(result.code, 0, result.stderr)
  t.match(result.stdout, /wrote functions\/v2\/things\.id\.get\.ts, tests\/functions\/v2\/things\.id\.get\.test\.ts/)
  const source = readFileSync(path.join(project.functions, 'v2/things.id.get.ts'), 'utf8')
  t.match(
    source,
    new RegExp(`path: '/api/v2/things/:id',\n  auth: 'bearer',\n  scope: 'admin',\n  code: ${nextCode},`),
    'next free code, bearer and admin by default',
  )
  t.match(readFileSync(path.join(project.functions, '_manifest.gen.ts'), 'utf8'), /from '\.\/v2\/things\.id\.get\.ts'/)
  t.match(
    readFileSync(path.join(project.root, 'tests/contract/endpoints.ts'), 'utf8'),
    `{ method: 'GET', path: '/api/v2/things/:id', auth: 'bearer', code: ${nextCode}, outcomes: [200], errors: [-1, -2] },\n]`,
  )
  // The manifest is fresh and the written test passes against the written function.
  execFileSync(process.execPath, [path.join(project.root, 'runtime/manifest/manifest-gen.ts'), '--check'])
  const tap = execFileSync(process.execPath, ['--disable-warning=ExperimentalWarning', path.join(project.root, 'tests/functions/v2/things.id.get.test.ts')], {
    encoding: 'utf8',
  })
  t.match(tap, /# \{ total: 2, pass: 2 \}|ok 2 - GET \/api\/v2\/things\/:id needs a token/)
  t.notMatch(tap, /not ok/)

  const sibling = await runCli(['new', 'endpoint', 'delete', '/api/v2/things/:id', '--code', '30', '--scope', 'screen'], {}, { cli: project.cli })
  t.equal(sibling.code, 0, sibling.stderr)
  t.match(readFileSync(path.join(project.functions, 'v2/things.id.delete.ts'), 'utf8'), /method: 'DELETE',[\s\S]*scope: 'screen',\n {2}code: 30,/)
  const v1 = await runCli(['new', 'endpoint', 'POST', '/api/v1/things'], {}, { cli: project.cli })
  t.equal(v1.code, 0, v1.stderr)
  t.notMatch(readFileSync(path.join(project.functions, 'v1/things.post.ts'), 'utf8'), /code:/, 'v1 carries no code')
  t.match(
    readFileSync(path.join(project.functions, 'v1/things.post.ts'), 'utf8'),
    /auth: 'none',\n {2}scope: 'admin',/,
    'v1 takes a token under Basic auth: it names its scope',
  )
})

t.test('bad input is refused with one line and writes nothing', async (t) => {
  const project = copyProject()
  t.teardown(() => project.remove())
  const before = readdirSync(path.join(project.functions, 'v2')).length
  const cases: [string[], RegExp][] = [
    [['new', 'endpoint', 'PUT', '/api/v2/things'], /method "PUT" is not one of GET, POST, DELETE/],
    [['new', 'endpoint', 'GET', '/v2/things'], /path "\/v2\/things" must start with \/api\/v1 or \/api\/v2/],
    [['new', 'endpoint', 'GET', '/api/v2/things/:thing'], /path segment ":thing" must be a word .* or one of :id, :uuid, :name/],
    [['new', 'endpoint', 'GET', '/api/v2/some-things'], /path segment "some-things" must be a word/],
    [
      ['new', 'endpoint', 'GET', '/api/v2/activeorders/:name'],
      /GET \/api\/v2\/activeorders\/:name is already served by functions\/v2\/activeorders\.id\.get\.ts/,
    ],
    [['new', 'endpoint', 'GET', '/api/v2/things', '--code', '0'], /--code "0" must be a whole number from 1 to 999/],
    [['new', 'endpoint', 'GET', '/api/v1/things', '--code', '3'], /v1 routes carry no returnCode/],
    [['new', 'endpoint', 'GET', '/api/v1/things', '--auth', 'bearer'], /--auth "bearer" must be none or button/],
    [['new', 'endpoint', 'GET'], /usage: gateway new endpoint/],
    [['new', 'route', 'GET', '/api/v2/x'], /only "new endpoint <METHOD> <path>" exists/],
  ]
  for (const [args, message] of cases) {
    const result = await runCli(args, {}, { cli: project.cli })
    t.equal(result.code, 1, args.join(' '))
    t.equal(result.stderr.trim().split('\n').length, 1, `${args.join(' ')}: one line`)
    t.match(result.stderr, message)
  }
  t.equal(readdirSync(path.join(project.functions, 'v2')).length, before, 'no function file written')
  t.notOk(existsSync(path.join(project.root, 'tests/functions/v2/things.get.test.ts')))
})

t.test('newEndpoint in process: writes into the given project, refuses what breaks a rule', async (t) => {
  const project = copyProject()
  t.teardown(() => project.remove())
  const written = await newEndpoint('post', '/api/v2/activeorders/:id/things', { auth: 'none' }, project.root)
  t.equal(path.relative(project.root, written.functionFile), 'functions/v2/activeorders.id.things.post.ts')
  const source = readFileSync(written.functionFile, 'utf8')
  t.match(source, /auth: 'none',\n {2}code: 5,/, 'the code of the resource it extends; an open route names no scope')
  t.notMatch(source, /errors:/, 'no auth errors on an open route')
  t.match(readFileSync(written.testFile, 'utf8'), /POST \/api\/v2\/activeorders\/1\/things/)
  t.notMatch(readFileSync(written.testFile, 'utf8'), /needs a token/)
  const button = await newEndpoint('GET', '/api/v1/orders/:uuid/note', { auth: 'button' }, project.root)
  t.match(readFileSync(button.testFile, 'utf8'), /GET \/api\/v1\/orders\/6f9619ff-8b86-d011-b42d-00c04fc964ff\/note/)
  t.match(
    readFileSync(path.join(project.root, 'tests/contract/endpoints.ts'), 'utf8'),
    /path: '\/api\/v1\/orders\/:uuid\/note', auth: 'button', outcomes: \[200\], errors: \[-3\] \}/,
  )
  await t.rejects(newEndpoint('POST', '/api/v2/activeorders/:id/things', {}, project.root), {
    message: /already served by functions\/v2\/activeorders\.id\.things\.post\.ts/,
  })
  await t.rejects(newEndpoint('GET', '/api/v2/scoped', { scope: 'root' }, project.root), { message: /--scope "root" must be one of read, screen, pos, admin/ })
  await t.rejects(newEndpoint('GET', '/api/v2/scoped', { auth: 'none', scope: 'read' }, project.root), {
    message: /--scope: an open route takes no token, so it names no scope/,
  })
  t.notOk(existsSync(path.join(project.functions, 'v2/scoped.get.ts')), 'nothing written for a bad scope')
})

t.test('a project whose functions already break a rule gets nothing new; the command checks its words', async (t) => {
  const project = copyProject()
  t.teardown(() => project.remove())
  writeFileSync(
    path.join(project.functions, 'v2/misnamed.get.ts'),
    readFileSync(path.join(project.functions, 'v2/capabilities.get.ts'), 'utf8').replace("'/api/v2/capabilities'", "'/api/v2/misnamed2'"),
  )
  await t.rejects(newEndpoint('GET', '/api/v2/fresh', {}, project.root), {
    message: /functions\/v2\/misnamed\.get\.ts: GET \/api\/v2\/misnamed2 must live in v2\/misnamed2\.get\.ts/,
  })
  t.notOk(existsSync(path.join(project.functions, 'v2/fresh.get.ts')), 'the new function file was taken back')
  await t.rejects(newCliCommand(['route'], {}), { message: /only "new endpoint <METHOD> <path>" exists/ })
  await t.rejects(newCliCommand(['endpoint', 'GET', '/api/v2/x', 'more'], {}), { message: /unexpected "more" after the path/ })
})
