// `gateway new endpoint GET /api/v2/things/:id`: writes the function file (named by the
// rules in docs/architecture.md, "Adding an endpoint"), a test that calls it, its row in
// tests/contract/endpoints.ts and the regenerated manifest. Bad input is refused with one
// line and nothing written.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { AuthStance, HttpMethod } from '../host/function-types.ts'
import { takesToken } from '../../lib/api/function-config.ts'
import { isScope, type Scope, scopes } from '../../lib/tokens/scopes.ts'
import { expectedFileName } from './manifest.ts'
import { ensureFreshManifest, listFunctionFiles, loadCandidates } from './manifest-gen.ts'

const projectRoot = fileURLToPath(new URL('../../', import.meta.url))
const methods: HttpMethod[] = ['GET', 'POST', 'DELETE']
const stances: AuthStance[] = ['none', 'bearer', 'button']
// Static segments are words (camelCase allowed, as in beginPairing); parameters are the known ones.
const segmentPattern = /^([A-Za-z][A-Za-z0-9]*|:id|:uuid|:name)$/

export interface NewEndpoint {
  method: HttpMethod
  path: string
  auth: AuthStance
  code?: number
  /** Routes that take a token: the least scope they need (default admin: nothing is opened by accident). */
  scope?: Scope
}

export interface Written {
  functionFile: string
  testFile: string
}

function fail(message: string): never {
  throw new Error(message)
}

/** Checks the request against the naming rules and the served routes; one line on failure. */
async function plan(root: string, methodText: string | undefined, routePath: string | undefined, flags: Record<string, unknown>): Promise<NewEndpoint> {
  if (!methodText || !routePath) fail(`usage: ${newEndpointUsage}`)
  const method = methodText.toUpperCase() as HttpMethod
  if (!methods.includes(method)) fail(`method "${methodText}" is not one of ${methods.join(', ')}`)
  const match = /^\/api\/(v[12])(\/.*)?$/.exec(routePath)
  if (!match) fail(`path "${routePath}" must start with /api/v1 or /api/v2`)
  const version = match[1]
  for (const segment of (match[2] ?? '').split('/').slice(1)) {
    if (!segmentPattern.test(segment)) fail(`path segment "${segment}" must be a word (letters, digits) or one of :id, :uuid, :name`)
  }
  const auth = (flags.auth ?? (version === 'v2' ? 'bearer' : 'none')) as AuthStance
  if (!stances.includes(auth) || (version === 'v1' && auth === 'bearer'))
    fail(`--auth "${String(flags.auth)}" must be ${version === 'v1' ? 'none or button' : stances.join(', ')}`)
  const scope = planScope({ path: routePath, auth }, flags.scope)
  const candidates = await loadCandidates(path.join(root, 'functions'))
  const taken = candidates.find((c) => c.config?.method === method && c.config.path.replace(/:\w+/g, ':') === routePath.replace(/:\w+/g, ':'))
  if (taken) fail(`${method} ${routePath} is already served by functions/${taken.file}`)
  if (version === 'v1') {
    if (flags.code !== undefined) fail('v1 routes carry no returnCode: leave out --code')
    return { method, path: routePath, auth, ...scope }
  }
  return {
    method,
    path: routePath,
    auth,
    code: codeFor(
      routePath,
      flags.code,
      candidates.map((c) => c.config!),
    ),
    ...scope,
  }
}

/** --scope for a route that takes a token (default admin); an open route takes none. */
function planScope(route: { path: string; auth: AuthStance }, given: unknown): { scope?: Scope } {
  if (!takesToken(route)) {
    if (given !== undefined) fail(`--scope: ${route.auth === 'none' ? 'an open route' : 'a button route'} takes no token, so it names no scope`)
    return {}
  }
  const scope = given ?? 'admin'
  if (!isScope(scope)) fail(`--scope "${String(given)}" must be one of ${scopes.join(', ')}`)
  return { scope }
}

/** --code, or the code of a route on the same resource, or one above every code in use. */
function codeFor(routePath: string, given: unknown, configs: { path: string; code?: number }[]): number {
  if (given !== undefined) {
    const code = Number(given)
    if (!/^\d+$/.test(String(given)) || code < 1 || code > 999) fail(`--code "${String(given)}" must be a whole number from 1 to 999`)
    return code
  }
  const resource = routePath.split('/')[3]
  const sibling = configs.find((c) => c.path.split('/')[3] === resource && c.path.startsWith('/api/v2') && c.code)
  return sibling?.code ?? Math.max(0, ...configs.map((c) => c.code ?? 0)) + 1
}

function functionSource(e: NewEndpoint): string {
  const params = [...e.path.matchAll(/:(\w+)/g)].map((m) => m[1])
  const payload = params.length ? `{ ${params.map((p) => `${p}: ctx.params.${p}`).join(', ')} }` : '{}'
  // The answer's fields, as a type: ctx.ok() takes exactly these (runtime/host/function-types.ts).
  const answer = params.length ? `{ ${params.map((p) => `${p}: string`).join('; ')} }` : 'NoFields'
  const version = e.path.startsWith('/api/v1') ? 'v1' : 'v2'
  const errors = e.auth === 'bearer' ? `\n  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED'],` : ''
  return `// ${e.method} ${e.path}: written by \`gateway new endpoint\`. Domain logic belongs in lib/;
// this function parses input, calls one service and presents the answer.
import type { FunctionConfig, GatewayFunction${params.length ? '' : ', NoFields'} } from '../../runtime/host/function-types.ts'

export const config = {
  method: '${e.method}',
  path: '${e.path}',
  auth: '${e.auth}',${e.scope === undefined ? '' : `\n  scope: '${e.scope}',`}${e.code === undefined ? '' : `\n  code: ${e.code},`}
  summary: '${e.method} ${e.path} (say here what it answers)',${errors}
} as const satisfies FunctionConfig

type Answer = ${answer}

const handler: GatewayFunction<Answer, '${version}'> = async (_request, ctx) => ctx.ok(${payload})

export default handler
`
}

function testSource(e: NewEndpoint, stem: string): string {
  const target = e.path.replace(/:uuid/g, '6f9619ff-8b86-d011-b42d-00c04fc964ff').replace(/:\w+/g, '1')
  const token = e.auth === 'bearer'
  const expected = e.code === undefined ? '{ status: 200 }' : `{ status: 200, returnCode: ${e.code} }`
  return `// ${e.method} ${e.path} (functions/${stem}.ts)
import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'

t.test('${e.method} ${e.path} answers', async (t) => {
  const gw = await testGateway()${token ? '\n  const token = await gw.issueToken()' : ''}
  const { status, body } = await gw.json('${e.method} ${target}'${token ? ', { token }' : ''})
  t.equal(status, 200)
  t.match(body, ${expected})
})
${
  token
    ? `
t.test('${e.method} ${e.path} needs a token', async (t) => {
  const gw = await testGateway()
  t.match((await gw.json('${e.method} ${target}')).body, { status: 401, returnCode: -2 })
})
`
    : ''
}`
}

function contractRow(e: NewEndpoint): string {
  const code = e.code === undefined ? '' : ` code: ${e.code},`
  const errors = e.auth === 'bearer' ? '[-1, -2]' : e.auth === 'button' ? '[-3]' : '[]'
  return `  { method: '${e.method}', path: '${e.path}', auth: '${e.auth}',${code} outcomes: [200], errors: ${errors} },\n`
}

export async function newEndpoint(
  method: string | undefined,
  routePath: string | undefined,
  flags: Record<string, unknown> = {},
  root = projectRoot,
): Promise<Written> {
  const endpoint = await plan(root, method, routePath, flags)
  const file = expectedFileName(endpoint)
  const stem = file.replace(/\.ts$/, '')
  const functionFile = path.join(root, 'functions', file)
  const testFile = path.join(root, 'tests/functions', `${stem}.test.ts`)
  const contractFile = path.join(root, 'tests/contract/endpoints.ts')
  if (existsSync(functionFile)) fail(`functions/${file} already exists`)
  if (existsSync(testFile)) fail(`${path.relative(root, testFile)} already exists`)
  const contract = readFileSync(contractFile, 'utf8')
  const end = contract.lastIndexOf(']')
  if (end < 0) fail('tests/contract/endpoints.ts: no closing ] of the contract table')
  writeFileSync(functionFile, functionSource(endpoint))
  try {
    await ensureFreshManifest(path.join(root, 'functions'))
  } catch (error) {
    rmSync(functionFile)
    throw error
  }
  writeFileSync(testFile, testSource(endpoint, stem))
  writeFileSync(contractFile, contract.slice(0, end) + contractRow(endpoint) + contract.slice(end))
  return { functionFile, testFile }
}

export const newEndpointUsage = 'gateway new endpoint <GET|POST|DELETE> </api/v1|v2/...> [--code N] [--auth none|bearer|button] [--scope S]'

/** What `gateway new endpoint --help` says beyond its usage line. */
export const newEndpointHelp = `${newEndpointUsage}
Writes, in this checkout: functions/<v1|v2>/<name>.<method>.ts (a function answering 200),
its test stub under tests/functions/, its row in tests/contract/endpoints.ts, and the entry
in functions/_manifest.gen.ts. Path segments are words or :id, :uuid, :name
(GET /api/v2/things/:id -> functions/v2/things.id.get.ts).
  --code N    the path's v2 returnCode (1-999); default: that of a route on the same
              resource, else one above every code in use. v1 routes have none.
  --auth A    bearer (the v2 default), none (the v1 default) or button; v1 takes none or button.
  --scope S   the least token scope the route needs: read, screen, pos or admin (default admin;
              docs/api.md, "Scopes"); only for routes that take a token.
Then: npm run dev serves it at once; docs/architecture.md, "Adding an endpoint".`

/** The `gateway new endpoint ...` command. */
export async function newCliCommand(positionals: string[], flags: Record<string, unknown>): Promise<string> {
  const [what, method, routePath, ...extra] = positionals
  if (what !== 'endpoint') fail(`"new ${what ?? ''}": only "new endpoint <METHOD> <path>" exists`)
  if (extra.length) fail(`unexpected "${extra.join(' ')}" after the path`)
  const root = projectRoot
  const written = await newEndpoint(method, routePath, flags, root)
  const functions = listFunctionFiles(path.join(root, 'functions')).length
  return [
    `wrote ${path.relative(root, written.functionFile)}, ${path.relative(root, written.testFile)}`,
    `added the route to tests/contract/endpoints.ts and functions/_manifest.gen.ts (${functions} functions)`,
    `next: fill in the function, then npm test -- ${path.relative(root, written.testFile)}`,
  ].join('\n')
}
