// What the OpenAPI fuzz tests share: the fixed seed and run count (FUZZ_SEED, FUZZ_RUNS),
// a JSON Schema validator for the served document's schemas (their $refs into the document's
// components resolved), and a gateway with a token (admin, or of the scope asked for) and its
// served document's operations.
import Ajv2020 from 'ajv/dist/2020.js'
import type { Scope } from '../../lib/tokens/scopes.ts'
import { testGateway, type TestGateway } from './gateway.ts'
import type { Schema } from './schema-arbitrary.ts'

export const seed = Number(process.env.FUZZ_SEED ?? 20261123)
export const numRuns = Number(process.env.FUZZ_RUNS ?? 150)
export const ajv = new (Ajv2020 as unknown as new (options: object) => { compile(schema: Schema): (value: unknown) => boolean })({
  strict: false,
  validateFormats: false,
})

export interface Operation {
  security?: Record<string, string[]>[]
  'x-route'?: string
  parameters: { name: string; in: string; required?: boolean; schema: Schema; 'x-scope'?: Scope }[]
  requestBody?: { required?: boolean; content: { 'application/json': { schema: Schema } } }
  responses: Record<string, unknown>
}

export interface FuzzSetup {
  gw: TestGateway
  token: string
  op: (method: string, template: string) => Operation
  /** Whether a value is valid by a schema of the document ($refs to its components resolved). */
  accepts: (schema: Schema) => (value: unknown) => boolean
}

/**
 * A test gateway (its radio up), a token, and the served document's operation for a route.
 * `scope`: the token's (default admin, what the button gives); `configInput`: the gateway's.
 */
export async function fuzzSetup(scope: Scope = 'admin', configInput: Record<string, unknown> = {}): Promise<FuzzSetup> {
  const gw = await testGateway(configInput)
  const admin = await gw.issueToken()
  const token = scope === 'admin' ? admin : await mint(gw, admin, scope)
  if (!(await gw.services.radio.info()).up) await gw.services.radio.start()
  const doc = (await gw.json('GET /api/openapi.json')).body as { paths: Record<string, Record<string, Operation>>; components: Schema }
  // A schema compiled beside the components, so '#/components/schemas/...' resolves as in the document.
  const accepts = (schema: Schema) => {
    const validate = ajv.compile({ allOf: [schema], components: doc.components })
    return (value: unknown) => validate(value)
  }
  return { gw, token, op: (method, template) => onTheWire(doc.paths[template]![method.toLowerCase()]!), accepts }
}

/**
 * An operation with the exact schemas of what the server accepts on the wire: the document gives
 * generators typed parameters and bodies and keeps the exact ones as `x-wire-schema`
 * (lib/openapi/for-generators.ts); the fuzz tests hold the server to those.
 */
export function onTheWire(op: Operation): Operation {
  const wire = structuredClone(op) as Operation & { parameters: { 'x-wire-schema'?: Schema }[] }
  for (const param of wire.parameters ?? []) if (param['x-wire-schema']) param.schema = param['x-wire-schema']
  const media = wire.requestBody?.content['application/json'] as { schema: Schema; 'x-wire-schema'?: Schema } | undefined
  if (media?.['x-wire-schema']) media.schema = media['x-wire-schema']
  return wire
}

/** A token of `scope`, minted with an admin token as a client would. */
export async function mint(gw: TestGateway, admin: string, scope: Scope): Promise<string> {
  const { status, body } = await gw.json(`POST /api/v2/accesstoken/generate?name=fuzz-${scope}&scope=${scope}`, { token: admin })
  if (status !== 201) throw new Error(`minting a ${scope} token: ${status} ${JSON.stringify(body)}`)
  return (body as { token: { token: string } }).token.token
}
