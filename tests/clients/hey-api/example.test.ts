// A second, independent generator: @hey-api/openapi-ts (clients/hey-api) generates a fetch client
// from the served document, TypeScript 5 builds it with the example under --strict, and the
// example runs against a real gateway on loopback.
import { spawnSync, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { parseConfig } from '../../../lib/config.ts'
import { startCheckedGateway } from '../../helpers/checked-gateway.ts'
import { servedDocument } from '../../../scripts/client-types.ts'
import { firstToken } from '../../helpers/browser.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { withoutRunnerHooks } from '../../helpers/process.ts'

const dir = join(import.meta.dirname, '..', '..', '..', 'clients', 'hey-api')
const bin = (name: string) => join(dir, 'node_modules', '.bin', name)

t.test('the hey-api client builds from the served document and its example runs', async (t) => {
  writeFileSync(join(dir, 'openapi.json'), await servedDocument())
  rmSync(join(dir, 'src', 'generated'), { recursive: true, force: true })
  rmSync(join(dir, 'dist'), { recursive: true, force: true })
  const generate = spawnSync(bin('openapi-ts'), ['-i', 'openapi.json', '-o', 'src/generated'], { cwd: dir, encoding: 'utf8', timeout: 100_000 })
  t.equal(generate.status, 0, `${generate.stdout}${generate.stderr}`)
  const build = spawnSync(bin('tsc'), ['-p', '.'], { cwd: dir, encoding: 'utf8', timeout: 100_000 })
  t.equal(build.status, 0, `${build.stdout}${build.stderr}`)

  const dataDir = mkdtempSync(join(tmpdir(), 'hey-api-'))
  const config = parseConfig({ port: 0, host: '127.0.0.1', dataDir, radio: { kind: 'simulated' }, mdns: { enabled: false } })
  const gateway = await startCheckedGateway({ config, log: memoryLogger('warn').log })
  t.teardown(async () => {
    await gateway.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })
  const token = await firstToken(gateway, dataDir, 'pos')
  // Without the runner's coverage: the generated client is hey-api's code, not the gateway's.
  const example = withoutRunnerHooks([join(dir, 'dist', 'example.js')])
  const child = spawn(example.command, example.args, {
    env: { ...process.env, GATEWAY_URL: `http://127.0.0.1:${gateway.port}`, GATEWAY_TOKEN: token },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk))
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
  t.equal(code, 0, output)
  t.match(output, /order 9 paged: true/)
  t.match(output, /active orders: 1/)
  t.match(output, /order 9 cleared/)
  t.match(output, /history: 1 of 1/)
})
