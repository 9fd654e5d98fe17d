import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { clientDirs, installed } from '../../scripts/prepare-client-deps.ts'

t.test('a client is installed only from its current package-lock.json', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'client-deps-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'package-lock.json'), '{"lockfileVersion":3}')
  t.notOk(installed(dir), 'no node_modules: missing')
  mkdirSync(join(dir, 'node_modules'))
  const { createHash } = await import('node:crypto')
  writeFileSync(join(dir, 'node_modules', '.installed-lock-sha256'), createHash('sha256').update('{"lockfileVersion":3}').digest('hex'))
  t.ok(installed(dir), 'installed from this lock')
  writeFileSync(join(dir, 'package-lock.json'), '{"lockfileVersion":3,"packages":{}}')
  t.notOk(installed(dir), 'the lock changed: stale')
})

t.test('the TypeScript client and the hey-api one are installed', async (t) => {
  t.match(clientDirs[0], /clients\/typescript$/)
  t.match(clientDirs[1], /clients\/hey-api$/)
})
