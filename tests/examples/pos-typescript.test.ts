// examples/pos-typescript.ts runs as a POS developer runs it, against a real gateway on loopback.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { parseConfig } from '../../lib/config.ts'
import { startCheckedGateway } from '../helpers/checked-gateway.ts'
import { firstToken } from '../helpers/browser.ts'
import { memoryLogger } from '../helpers/memory-logger.ts'

const example = join(import.meta.dirname, '..', '..', 'examples', 'pos-typescript.ts')

t.test('start, page, receive the signed webhook, clear', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'example-pos-'))
  const config = parseConfig({ port: 0, host: '127.0.0.1', dataDir, radio: { kind: 'simulated' }, mdns: { enabled: false }, webhooks: { allowLoopback: true } })
  const gateway = await startCheckedGateway({ config, log: memoryLogger('warn').log })
  t.teardown(async () => {
    await gateway.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })
  const token = await firstToken(gateway, dataDir, 'pos')
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', example], {
    env: { ...process.env, GATEWAY_URL: `http://127.0.0.1:${gateway.port}`, GATEWAY_TOKEN: token },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk))
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
  t.equal(code, 0, output)
  t.match(output, /webhook registered: http:\/\/127\.0\.0\.1:\d+\/hook/)
  t.match(output, /order 7 started/)
  t.match(output, /order 7 paged: true/)
  t.match(output, /webhook received and verified: ORDER_PAGED for order 7/)
  t.match(output, /order 7 cleared/)
})
