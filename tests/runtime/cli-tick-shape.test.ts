// `gateway start` keeps one nextTick entry (runtime/wiring/tick-shape.ts) before its trim
// after start-up: in a real gateway process, after the trim and more collections of the same
// kind, nextTick's object-literal sites are still monomorphic (without the kept entry they go
// megamorphic for good, and Node's HTTP path pays about 4 µs a request; docs/decisions/0012-memory-trim-and-nextTick-entry.md).
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { freePort } from '../../bench/free-port.ts'
import { tickShapeAfterCollections } from '../helpers/tick-shape-run.ts'

t.test("after the start-up trim, nextTick's literal sites are still monomorphic", async (t) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'cli-tick-shape-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const port = await freePort()
  const configFile = path.join(dataDir, 'gateway.config.json')
  await writeFile(configFile, JSON.stringify({ host: '127.0.0.1', port, dataDir, mdns: { enabled: false }, tls: { enabled: false } }))
  // Asked once the trim has run (logged at debug level).
  const { states } = await tickShapeAfterCollections(t, ['start', '--config', configFile], '"msg":"start-up garbage collected"', dataDir, {
    LOG_LEVEL: 'debug',
  })
  t.ok(states.length >= 2, `nextTick still builds its entry as a literal with computed keys: ${states}`)
  t.same(new Set(states), new Set(['MONOMORPHIC']), String(states))
})
