// `gateway dev` on a copy of the project: a function file dropped in is served within a
// second without a restart, a change is served, a broken file is reported with its path
// while the old table keeps serving, and a removed file is gone (404/-5).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import type { ManifestEntry } from '../../../runtime/host/function-types.ts'
import { loadFunctionTable, SwappableRouter, watchFunctions } from '../../../runtime/manifest/dev-reload.ts'
import { ensureFreshManifest, renderManifest } from '../../../runtime/manifest/manifest-gen.ts'
import { copyProject } from '../../helpers/project-copy.ts'
import { startGatewayProcess } from '../../helpers/process.ts'
import { until } from '../../helpers/until.ts'

const helloFile = (message: string) => `import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'GET',
  path: '/api/v2/hello',
  auth: 'none',
  code: 99,
  summary: 'Says hello',
} as const satisfies FunctionConfig

const handler: GatewayFunction = async (_request, ctx) => ctx.ok({ message: '${message}' })

export default handler
`

/** Polls the route until the answer satisfies `ok`; returns the milliseconds it took. */
async function untilAnswer(url: string, ok: (status: number, body: any) => boolean, limitMs = 5_000): Promise<number> {
  const began = performance.now()
  for (;;) {
    const response = await fetch(url)
    const body = await response.json()
    if (ok(response.status, body)) return performance.now() - began
    if (performance.now() - began > limitMs) throw new Error(`still ${response.status} ${JSON.stringify(body)}`)
    await new Promise((resolve) => setImmediate(resolve))
  }
}

t.test('files dropped into a running dev gateway are live at once; broken ones keep the old table', async (t) => {
  const project = copyProject()
  t.teardown(() => project.remove())
  const dataDir = t.testdir({})
  const gateway = await startGatewayProcess(dataDir, {}, [], {
    cli: project.cli,
    command: 'dev',
    uncheckedAnswers: 'it serves the hello function this test writes and rewrites, which the tree and its OpenAPI document do not have',
  })
  t.teardown(() => gateway.stop('SIGKILL'))
  const hello = `${gateway.url}/api/v2/hello`
  const helloPath = path.join(project.functions, 'v2/hello.get.ts')
  t.match(await (await fetch(hello)).json(), { status: 404, returnCode: -5 }, 'not served before the file exists')

  writeFileSync(helloPath, helloFile('hello'))
  const addedMs = await untilAnswer(hello, (status, body) => status === 200 && body.message === 'hello')
  t.ok(addedMs < 1000, `a new file answered after ${Math.round(addedMs)} ms`)

  writeFileSync(helloPath, helloFile('changed'))
  const changedMs = await untilAnswer(hello, (status, body) => status === 200 && body.message === 'changed')
  t.ok(changedMs < 1000, `a changed file answered after ${Math.round(changedMs)} ms`)

  writeFileSync(path.join(project.functions, 'v2/broken.get.ts'), 'export const config = {{{')
  await until(() => /functions\/v2\/broken\.get\.ts: does not load/.test(gateway.output()), 'load error reported')
  t.match(await (await fetch(hello)).json(), { message: 'changed' }, 'the old table keeps serving after a file that does not load')
  rmSync(path.join(project.functions, 'v2/broken.get.ts'))

  // A file that loads but breaks a manifest rule (its name says POST, its config GET).
  writeFileSync(path.join(project.functions, 'v2/hello.post.ts'), helloFile('rule'))
  await until(() => /functions\/v2\/hello\.post\.ts: GET \/api\/v2\/hello must live in v2\/hello\.get\.ts/.test(gateway.output()), 'rule breach reported')
  t.match(await (await fetch(hello)).json(), { message: 'changed' }, 'the old table keeps serving after a rule breach')
  rmSync(path.join(project.functions, 'v2/hello.post.ts'))

  rmSync(helloPath)
  const removedMs = await untilAnswer(hello, (status, body) => status === 404 && body.returnCode === -5)
  t.ok(removedMs < 1000, `a removed file was gone after ${Math.round(removedMs)} ms`)
  t.match(await (await fetch(`${gateway.url}/api/v2`)).json(), { returnCode: 20 }, 'the gateway kept running throughout')
  t.match(gateway.output(), /functions reloaded/)
  t.equal(await gateway.stop('SIGTERM'), 0)
})

// In process, on a functions dir of its own (the function files import types only).

function functionsDir(t: Test): string {
  const dir = t.testdir({})
  mkdirSync(path.join(dir, 'v1'))
  mkdirSync(path.join(dir, 'v2'))
  return dir
}

t.test('the watcher swaps in each good table and keeps the last one after a bad file', async (t) => {
  const dir = functionsDir(t)
  const logs = memoryLogger('info')
  const tables: ManifestEntry[][] = []
  let applied = () => {}
  const watcher = watchFunctions({ dir, log: logs.log, settleMs: 5, apply: (entries) => (tables.push(entries), applied()) })
  t.teardown(() => watcher.close())
  const next = () => new Promise<void>((resolve) => (applied = resolve))

  let waiting = next()
  writeFileSync(path.join(dir, 'v2/hello.get.ts'), helloFile('one'))
  await waiting
  await watcher.settled()
  t.same(
    tables.at(-1)!.map((e) => e.file),
    ['v2/hello.get.ts'],
  )
  t.equal(readFileSync(path.join(dir, '_manifest.gen.ts'), 'utf8'), renderManifest([{ file: 'v2/hello.get.ts', config: tables.at(-1)![0], hasHandler: true }]))

  const count = tables.length
  writeFileSync(path.join(dir, 'v2/bad.get.ts'), 'export default 1')
  await until(() => logs.lines().some((l: any) => /functions\/v2\/bad\.get\.ts: no exported config/.test(l.msg)), 'problem logged')
  await watcher.settled()
  t.equal(tables.length, count, 'no table applied')

  waiting = next()
  rmSync(path.join(dir, 'v2/bad.get.ts'))
  await waiting
  t.same(
    tables.at(-1)!.map((e) => e.file),
    ['v2/hello.get.ts'],
  )
  // Non-function files do not trigger a reload.
  writeFileSync(path.join(dir, 'v2/_notes.ts'), '')
  writeFileSync(path.join(dir, 'v2/README.md'), '')
  await watcher.settled()
})

t.test('loadFunctionTable imports changed content under a new URL, unchanged content once', async (t) => {
  const dir = functionsDir(t)
  writeFileSync(path.join(dir, 'v2/hello.get.ts'), helloFile('a'))
  const first = await loadFunctionTable(dir)
  const again = await loadFunctionTable(dir)
  t.equal(first[0]!.handler, again[0]!.handler, 'same content, same module')
  writeFileSync(path.join(dir, 'v2/hello.get.ts'), helloFile('b'))
  const changed = await loadFunctionTable(dir)
  t.not(changed[0]!.handler, first[0]!.handler, 'new content, new module')
})

t.test('a swappable router answers from the table it holds now', async (t) => {
  const answer = (text: string) => ({ fetch: async () => new Response(text) })
  const router = new SwappableRouter(answer('old'))
  t.equal(await (await router.fetch(new Request('http://x/'))).text(), 'old')
  router.swap(answer('new'))
  t.equal(await (await router.fetch(new Request('http://x/'))).text(), 'new')
})

t.test('ensureFreshManifest: fresh, regenerated, or one line naming the file', async (t) => {
  const dir = functionsDir(t)
  writeFileSync(path.join(dir, 'v2/hello.get.ts'), helloFile('a'))
  t.equal(await ensureFreshManifest(dir), 'functions/v2/hello.get.ts is new')
  t.equal(await ensureFreshManifest(dir), '', 'then fresh')
  for (const name of ['a', 'b', 'c', 'd'])
    writeFileSync(
      path.join(dir, `v1/x${name}.get.ts`),
      // A v1 route takes a token when one is sent (v1's optional auth), so it names a scope.
      helloFile(name).replace("path: '/api/v2/hello'", `path: '/api/v1/x${name}'`).replace('  code: 99,\n', "  scope: 'read',\n"),
    )
  rmSync(path.join(dir, 'v2/hello.get.ts'))
  t.equal(await ensureFreshManifest(dir), 'functions/v1/xa.get.ts is new, functions/v1/xb.get.ts is new, functions/v1/xc.get.ts is new, 2 more')
  // A new file (a changed one would be served from node's module cache in this process).
  writeFileSync(path.join(dir, 'v2/other.get.ts'), helloFile('a').replace('code: 99', 'code: 1000').replace("'/api/v2/hello'", "'/api/v2/other'"))
  await t.rejects(ensureFreshManifest(dir), {
    message: 'functions/v2/other.get.ts: v2 route needs a default code from 1 to 999 (fix or remove the file, then start again)',
  })
})
