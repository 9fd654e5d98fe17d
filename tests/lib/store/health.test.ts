import path from 'node:path'
import t from 'tap'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { StorageHealth } from '../../../lib/store/health.ts'

t.test('one warning per episode, with the free space; the end of an episode is told too', async (t) => {
  const memory = memoryLogger('info')
  const dir = t.testdir()
  const health = new StorageHealth(dir, memory.log)
  health.succeeded()
  t.same(memory.lines(), [], 'nothing while healthy')
  const full = Object.assign(new Error('ENOSPC'), { code: 'ENOSPC' })
  health.failed(full, 'orders: write')
  health.failed(full, 'orders: write')
  t.ok(health.failing)
  health.succeeded()
  t.notOk(health.failing)
  const lines = memory.lines()
  t.equal(lines.length, 2)
  t.match(lines[0], { level: 40, code: 'ENOSPC', during: 'orders: write', dataDir: dir, freeBytes: Number })
  t.ok((lines[0].freeBytes as number) > 0)
  t.match(lines[1], { level: 30, msg: 'storage takes writes again' })
})

t.test('free space unknown: a missing dir, or an in-memory store', async (t) => {
  t.equal(new StorageHealth(path.join(t.testdir(), 'gone'), undefined).freeBytes(), undefined)
  t.equal(new StorageHealth(undefined, undefined).freeBytes(), undefined)
})
