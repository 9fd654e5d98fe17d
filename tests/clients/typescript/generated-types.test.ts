// A POS developer's first steps with the served OpenAPI document: openapi-typescript generates
// types from it, a client over openapi-fetch compiles under `tsc --strict` (TypeScript 5, the
// client package's own) creating an order with a numeric name and listing history with limit: 10,
// and Redocly's linter finds no error. The checked-in document and types must be what is served.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { clientDir, generateTypes, servedDocument } from '../../../scripts/client-types.ts'

const bin = (name: string) => join(clientDir, 'node_modules', '.bin', name)
const run = (command: string, args: string[], cwd = clientDir) => spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 100_000 })

// One compiler run for every probe file (TypeScript 5 starts slowly): each test reads its own lines.
const strictCompile = (files: string[]) =>
  run(bin('tsc'), [
    '--strict',
    '--noEmit',
    '--skipLibCheck',
    '--target',
    'ES2022',
    '--module',
    'NodeNext',
    '--moduleResolution',
    'NodeNext',
    '--allowImportingTsExtensions',
    ...files.map((file) => join(work, file)),
  ])

const work = mkdtempSync(join(clientDir, '.probe-'))
t.teardown(() => rmSync(work, { recursive: true, force: true }))
const served = await servedDocument()
writeFileSync(join(work, 'openapi.json'), served)
generateTypes(join(work, 'openapi.json'), join(work, 'schema.d.ts'))

t.test('the checked-in document and types are what the gateway serves (npm run client:types)', async (t) => {
  t.equal(readFileSync(join(clientDir, 'openapi.json'), 'utf8'), served, 'clients/typescript/openapi.json')
  t.equal(readFileSync(join(clientDir, 'src', 'schema.d.ts'), 'utf8'), readFileSync(join(work, 'schema.d.ts'), 'utf8'), 'clients/typescript/src/schema.d.ts')
})

writeFileSync(
  join(work, 'probe.ts'),
  `import createClient from 'openapi-fetch'
import type { paths } from './schema.d.ts'
import { posClient } from '../src/client.ts'
const api = createClient<paths>({ baseUrl: 'http://gateway:8000', headers: { Authorization: 'Bearer x' } })
export async function probe(): Promise<string> {
  const created = await api.POST('/api/v2/activeorders', { body: { name: 4711, orderType: 'TO_GO' } })
  const state: 'started' | 'located' | 'cleared' = created.data!.activeorder.state
  const history = await api.GET('/api/v2/orders', { params: { query: { limit: 10 } } })
  const count: number | string = history.data!.count
  const pos = posClient({ baseUrl: 'http://gateway:8000', token: 'x' })
  const order = await pos.create(4711, 'TO_GO')
  await pos.history({ limit: 10, offset: 0 })
  return state + count + order.uuid
}
`,
)
writeFileSync(
  join(work, 'bad.ts'),
  `import createClient from 'openapi-fetch'
import type { paths } from './schema.d.ts'
const api = createClient<paths>({ baseUrl: 'http://gateway:8000' })
export const bad = api.POST('/api/v2/activeorders', { body: { name: 4711, orderType: 'SOON' } })
`,
)
const compiled = strictCompile(['probe.ts', 'bad.ts'])
const compilerOutput = `${compiled.stdout}${compiled.stderr}`
// tsc's first line of each error names its file; continuation lines are indented.
const errorFiles = compilerOutput.split('\n').filter((line) => /error TS\d+/.test(line) && !line.startsWith(' '))

t.test('types generated from the served document compile a strict client', async (t) => {
  t.same(
    errorFiles.filter((line) => !line.includes('bad.ts')),
    [],
    `no error outside the file written to fail:\n${compilerOutput}`,
  )
  t.notMatch(readFileSync(join(work, 'schema.d.ts'), 'utf8'), /\[x: string\]: undefined|\[key: string\]: undefined/, 'no body collapses to undefined')
})

t.test('the strict compile can fail: a string name is refused', async (t) => {
  t.not(compiled.status, 0)
  t.ok(
    errorFiles.some((line) => line.includes('bad.ts')),
    compilerOutput,
  )
  t.match(compilerOutput, /SOON/)
})

t.test('Redocly CLI lints the served document with no error', async (t) => {
  const lint = run(bin('redocly'), ['lint', join(work, 'openapi.json'), '--format=summary'])
  t.equal(lint.status, 0, `${lint.stdout}${lint.stderr}`)
  t.notMatch(`${lint.stdout}${lint.stderr}`, /\berror\b/i)
})
