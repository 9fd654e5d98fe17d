// `npm run client:types`: writes the document a gateway serves (GET /api/openapi.json) to
// clients/typescript/openapi.json and regenerates clients/typescript/src/schema.d.ts from it with
// the client's own openapi-typescript (tests/clients/typescript/generated-types.test.ts fails when
// the checked-in files and the served document drift).
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { testGateway } from '../tests/helpers/gateway.ts'

export const clientDir = join(import.meta.dirname, '..', 'clients', 'typescript')

/** The document as served, in the text the client keeps. */
export async function servedDocument(): Promise<string> {
  const gw = await testGateway()
  const { status, body } = await gw.json('GET /api/openapi.json')
  if (status !== 200) throw new Error(`GET /api/openapi.json: ${status}`)
  return `${JSON.stringify(body, null, 2)}\n`
}

/** Runs the client's openapi-typescript on `input`, writing `output`. */
export function generateTypes(input: string, output: string): void {
  const bin = join(clientDir, 'node_modules', '.bin', 'openapi-typescript')
  const run = spawnSync(bin, [input, '-o', output], { encoding: 'utf8' })
  if (run.status !== 0) throw new Error(`openapi-typescript failed (run npm ci --prefix clients/typescript): ${run.stderr}${run.stdout}`)
}

if (import.meta.main) {
  writeFileSync(join(clientDir, 'openapi.json'), await servedDocument())
  generateTypes(join(clientDir, 'openapi.json'), join(clientDir, 'src', 'schema.d.ts'))
  process.exit(0)
}
