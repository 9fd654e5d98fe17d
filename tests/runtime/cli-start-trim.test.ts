// `gateway start` collects what loading its modules left before it opens the stores and
// starts the servers (runtime/cli.ts), so the young generation of start-up never holds both:
// with --expose-gc, a memory-reducing collection comes before "gateway started" (the one
// after start-up comes 2 s later; docs/decisions/0012-memory-trim-and-nextTick-entry.md).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { startGatewayProcess } from '../helpers/process.ts'

/** Wraps gc: each memory-reducing collection's wall-clock time, one line each, in COLLECTIONS_OUT. */
const preload = `
import { appendFileSync } from 'node:fs'
const collect = globalThis.gc
globalThis.gc = (options) => {
  if (options?.flavor === 'last-resort') appendFileSync(process.env.COLLECTIONS_OUT, performance.timeOrigin + performance.now() + '\\n')
  return collect(options)
}
`

t.test('a memory-reducing collection before the gateway has started', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'cli-start-trim-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const configFile = path.join(dir, 'gateway.config.json')
  await writeFile(configFile, JSON.stringify({ host: '127.0.0.1', mdns: { enabled: false }, tls: { enabled: false } }))
  await writeFile(path.join(dir, 'preload.mjs'), preload)
  const collections = path.join(dir, 'collections.txt')
  await writeFile(collections, '')
  const gateway = await startGatewayProcess(path.join(dir, 'data'), { GATEWAY_CONFIG: configFile, COLLECTIONS_OUT: collections }, [], {
    nodeFlags: ['--expose-gc', '--import', path.join(dir, 'preload.mjs')],
  })
  t.teardown(() => gateway.stop('SIGKILL'))
  const started = gateway
    .output()
    .split('\n')
    .find((line) => line.includes('"msg":"gateway started"'))
  t.ok(started, gateway.output())
  const startedAt = Date.parse((JSON.parse(started!) as { time: string }).time)
  const times = (await readFile(collections, 'utf8')).split('\n').filter(Boolean).map(Number)
  t.ok(
    times.some((time) => time < startedAt),
    `collections at ${times.join(', ')}, started at ${startedAt}`,
  )
})
