// `gateway dev` on a copy of the project: a function file dropped in is served within a
// second without a restart, a change is served, a broken file is reported with its path
// while the old table keeps serving, and a removed file is gone (404/-5).
import { rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { copyProject } from '../helpers/project-copy.ts'
import { startGatewayProcess } from '../helpers/process.ts'
import { waitFor } from '../helpers/webhooks.ts'

const helloFile = (message: string) => `import type { FunctionConfig, GatewayFunction } from '../../runtime/define.ts'

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
async function until(url: string, ok: (status: number, body: any) => boolean, limitMs = 5_000): Promise<number> {
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
  const gateway = await startGatewayProcess(dataDir, {}, [], { cli: project.cli, command: 'dev' })
  t.teardown(() => gateway.stop('SIGKILL'))
  const hello = `${gateway.url}/api/v2/hello`
  const helloPath = path.join(project.functions, 'v2/hello.get.ts')
  t.match(await (await fetch(hello)).json(), { status: 404, returnCode: -5 }, 'not served before the file exists')

  writeFileSync(helloPath, helloFile('hello'))
  const addedMs = await until(hello, (status, body) => status === 200 && body.message === 'hello')
  t.ok(addedMs < 1000, `a new file answered after ${Math.round(addedMs)} ms`)

  writeFileSync(helloPath, helloFile('changed'))
  const changedMs = await until(hello, (status, body) => status === 200 && body.message === 'changed')
  t.ok(changedMs < 1000, `a changed file answered after ${Math.round(changedMs)} ms`)

  writeFileSync(path.join(project.functions, 'v2/broken.get.ts'), 'export const config = {{{')
  await waitFor(() => /functions\/v2\/broken\.get\.ts: does not load/.test(gateway.output()), 5_000, 'load error reported')
  t.match(await (await fetch(hello)).json(), { message: 'changed' }, 'the old table keeps serving after a file that does not load')
  rmSync(path.join(project.functions, 'v2/broken.get.ts'))

  // A file that loads but breaks a manifest rule (its name says POST, its config GET).
  writeFileSync(path.join(project.functions, 'v2/hello.post.ts'), helloFile('rule'))
  await waitFor(() => /functions\/v2\/hello\.post\.ts: GET \/api\/v2\/hello must live in v2\/hello\.get\.ts/.test(gateway.output()), 5_000, 'rule breach reported')
  t.match(await (await fetch(hello)).json(), { message: 'changed' }, 'the old table keeps serving after a rule breach')
  rmSync(path.join(project.functions, 'v2/hello.post.ts'))

  rmSync(helloPath)
  const removedMs = await until(hello, (status, body) => status === 404 && body.returnCode === -5)
  t.ok(removedMs < 1000, `a removed file was gone after ${Math.round(removedMs)} ms`)
  t.match(await (await fetch(`${gateway.url}/api/v2`)).json(), { returnCode: 20 }, 'the gateway kept running throughout')
  t.match(gateway.output(), /functions reloaded/)
  t.equal(await gateway.stop('SIGTERM'), 0)
})
