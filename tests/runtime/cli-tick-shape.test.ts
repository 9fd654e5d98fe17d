// `gateway start` keeps one nextTick entry (runtime/wiring/tick-shape.ts) before its trim
// after start-up: in a real gateway process, after the trim and more collections of the same
// kind, nextTick's object-literal sites are still monomorphic (without the kept entry they go
// megamorphic for good, and Node's HTTP path pays about 4 µs a request; docs/performance.md).
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { freePort } from '../../bench/free-port.ts'
import { cliPath, withoutRunnerHooks } from '../helpers/process.ts'
import { until } from '../helpers/until.ts'

const probe = path.join(import.meta.dirname, '../helpers/tick-shape-probe.ts')

t.test("after the start-up trim, nextTick's literal sites are still monomorphic", async (t) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'cli-tick-shape-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const port = await freePort()
  const configFile = path.join(dataDir, 'gateway.config.json')
  await writeFile(configFile, JSON.stringify({ host: '127.0.0.1', port, dataDir, mdns: { enabled: false }, tls: { enabled: false } }))
  const out = path.join(dataDir, 'tick-shape.json')
  const { command, args } = withoutRunnerHooks(['--allow-natives-syntax', '--fuzzing', '--expose-gc', '--disable-warning=ExperimentalWarning', '--import', probe, cliPath, 'start', '--config', configFile])
  const child = spawn(command, args, {
    env: { ...process.env, LOG_LEVEL: 'debug', TICK_SHAPE_OUT: out },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  t.teardown(() => child.kill('SIGKILL'))
  await until(() => output.includes('"msg":"start-up garbage collected"') || child.exitCode !== null, 'the trim after start-up', 30_000)
  t.match(output, /"msg":"start-up garbage collected"/, output)
  child.kill('SIGUSR2')
  await until(() => existsSync(out), 'the probe has read the feedback', 30_000)
  const states = JSON.parse(await readFile(out, 'utf8')) as string[]
  t.ok(states.length >= 2, `nextTick still builds its entry as a literal with computed keys: ${states}`)
  t.same(new Set(states), new Set(['MONOMORPHIC']), String(states))
})
