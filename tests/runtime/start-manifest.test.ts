// `gateway start` never serves a silently stale route table: a function file dropped in
// since the last `npm run gen` is put into functions/_manifest.gen.ts first (and said so);
// a file that does not load or breaks a rule stops start-up with one line naming it.
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { copyProject } from '../helpers/project-copy.ts'
import { runCli, startGatewayProcess } from '../helpers/process.ts'
import { spawnObeyingFileModes } from '../helpers/without-root-override.ts'

const hello = `import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = { method: 'GET', path: '/api/v2/hello', auth: 'none', code: 99, summary: 'Says hello' } as const satisfies FunctionConfig

const handler: GatewayFunction = async (_request, ctx) => ctx.ok({ message: 'hello' })

export default handler
`

t.test('a stale manifest is regenerated before the table is served', async (t) => {
  const project = copyProject()
  t.teardown(() => project.remove())
  writeFileSync(path.join(project.functions, 'v2/hello.get.ts'), hello)
  const gateway = await startGatewayProcess(t.testdir({}), {}, [], {
    cli: project.cli,
    uncheckedAnswers: 'it serves the hello function this test adds, which the tree and its OpenAPI document do not have',
  })
  t.teardown(() => gateway.stop('SIGKILL'))
  t.match(gateway.output(), /functions\/_manifest\.gen\.ts was stale \(functions\/v2\/hello\.get\.ts is new\): regenerated/)
  t.match(await (await fetch(`${gateway.url}/api/v2/hello`)).json(), { status: 200, returnCode: 99, message: 'hello' })
  t.match(readFileSync(path.join(project.functions, '_manifest.gen.ts'), 'utf8'), /from '\.\/v2\/hello\.get\.ts'/)
  await gateway.stop()

  // A removed file is dropped from the table the same way.
  rmSync(path.join(project.functions, 'v2/hello.get.ts'))
  const again = await startGatewayProcess(t.testdir({}), {}, [], { cli: project.cli })
  t.teardown(() => again.stop('SIGKILL'))
  t.match(again.output(), /was stale \(functions\/v2\/hello\.get\.ts is gone\): regenerated/)
  t.match(await (await fetch(`${again.url}/api/v2/hello`)).json(), { status: 404, returnCode: -5 })
  await again.stop()
})

t.test('a function file that breaks a rule or does not load stops start-up with one line', async (t) => {
  const project = copyProject()
  t.teardown(() => project.remove())
  const file = path.join(project.functions, 'v2/hello.post.ts')
  writeFileSync(file, hello)
  const rule = await runCli(['start', '--data-dir', t.testdir({}), '--port', '0'], {}, { cli: project.cli })
  t.equal(rule.code, 1)
  t.equal(rule.stderr.trim().split('\n').length, 1, 'one line')
  t.match(
    rule.stderr,
    /^gateway start: functions\/v2\/hello\.post\.ts: GET \/api\/v2\/hello must live in v2\/hello\.get\.ts \(fix or remove the file, then start again\)/,
  )

  writeFileSync(file, 'export const = ')
  const load = await runCli(['start', '--data-dir', t.testdir({}), '--port', '0'], {}, { cli: project.cli })
  t.equal(load.code, 1)
  t.equal(load.stderr.trim().split('\n').length, 1, 'one line')
  t.match(load.stderr, /^gateway start: functions\/v2\/hello\.post\.ts: does not load: /)
})

t.test('a stale manifest that cannot be written is refused, naming the fix', async (t) => {
  const project = copyProject()
  t.teardown(() => project.remove())
  writeFileSync(path.join(project.functions, 'v2/hello.get.ts'), hello)
  chmodSync(path.join(project.functions, '_manifest.gen.ts'), 0o444)
  // Root writes read-only files: it runs without that power.
  const result = spawnObeyingFileModes(
    process.execPath,
    ['--disable-warning=ExperimentalWarning', project.cli, 'start', '--data-dir', t.testdir({}), '--port', '0'],
    { encoding: 'utf8' },
  )
  t.equal(result.status, 1)
  t.match(result.stderr, /functions\/_manifest\.gen\.ts is stale \(functions\/v2\/hello\.get\.ts is new\) and cannot be written \(EACCES\): run npm run gen/)
})
