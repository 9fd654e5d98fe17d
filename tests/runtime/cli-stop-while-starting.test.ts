// `gateway start` stopped while it is still starting: the stop waits for the start, then
// runs as any other (exit 0, "gateway stopped"), so what the start was doing is finished.
// On a first start that is the box's certificate, made by a child process after the HTTP
// port answers: it is stored, and the next start serves the same one.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { freePort } from '../../bench/free-port.ts'
import { cliPath } from '../helpers/process.ts'

async function answers(port: number): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/api/v2`)).status === 200
  } catch {
    return false
  }
}

t.test('SIGTERM right after the first answer of a first start: a clean stop, the certificate stored', async (t) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'stop-while-starting-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const port = await freePort()
  const configFile = path.join(dataDir, 'gateway.config.json')
  await writeFile(configFile, JSON.stringify({ host: '127.0.0.1', port, mdns: { enabled: false }, tls: { port: 0 } }))
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', cliPath, 'start', '--config', configFile], {
    env: { ...process.env, GATEWAY_DATA_DIR: dataDir, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('exit', (code, signal) => resolve([code, signal])))
  t.teardown(() => child.kill('SIGKILL'))
  while (!(await answers(port))) {
    t.equal(child.exitCode, null, `still running:\n${output}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  // The HTTP port answers before the HTTPS part has its certificate (it comes later in the start).
  t.notOk(output.includes('"msg":"gateway started"'), 'still starting when stopped')
  child.kill('SIGTERM')
  t.same(await exited, [0, null], `a clean exit:\n${output}`)
  t.match(output, /"signal":"SIGTERM","msg":"shutting down"/)
  t.match(output, /"msg":"gateway stopped"/)
  const certificate = path.join(dataDir, 'tls', 'self-signed.crt')
  t.ok(existsSync(certificate), 'the certificate the start was making is stored')
  t.match(await readFile(certificate, 'utf8'), /^-----BEGIN CERTIFICATE-----/)
})
