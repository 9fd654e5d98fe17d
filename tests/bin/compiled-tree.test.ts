// When bin/gateway.js rebuilds: the sources' fingerprint and the stamp in build/, and what
// it runs when building is impossible.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t, { type Test } from 'tap'
import { compiledCli, isFresh, runsFromSources, sourceFingerprint, stampName } from '../../bin/compiled-tree.js'

/** A minimal tree: a few sources, and a build script that only exits with `code`. */
function fakeRoot(t: Test, buildExit = 0): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'compiled-tree-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  for (const dir of ['lib/kernel', 'runtime/build', 'functions/v2']) mkdirSync(path.join(root, dir), { recursive: true })
  writeFileSync(path.join(root, 'lib/kernel/a.ts'), 'export const a = 1\n')
  writeFileSync(path.join(root, 'lib/kernel/types.d.ts'), 'export type A = 1\n')
  writeFileSync(path.join(root, 'functions/v2/index.get.ts'), 'export default () => 1\n')
  writeFileSync(path.join(root, 'runtime/build/build.ts'), `process.exit(${buildExit})\n`)
  return root
}

const stamp = (root: string) => {
  mkdirSync(path.join(root, 'build'), { recursive: true })
  writeFileSync(path.join(root, 'build', stampName), JSON.stringify({ fingerprint: sourceFingerprint(root).fingerprint }))
}

t.test('the fingerprint changes with any edit, added or removed source, older times included', async (t) => {
  const root = fakeRoot(t)
  const first = sourceFingerprint(root)
  t.same(first.files, ['functions/v2/index.get.ts', 'lib/kernel/a.ts', 'runtime/build/build.ts'], 'sources, sorted, without declaration files')
  t.equal(sourceFingerprint(root).fingerprint, first.fingerprint, 'stable')
  const seen = new Set([first.fingerprint])
  const changes: [string, () => void][] = [
    ['an edit', () => writeFileSync(path.join(root, 'lib/kernel/a.ts'), 'export const a = 22\n')],
    ['an older time', () => utimesSync(path.join(root, 'lib/kernel/a.ts'), new Date(2020, 0, 1), new Date(2020, 0, 1))],
    ['a dropped-in function', () => writeFileSync(path.join(root, 'functions/v2/things.get.ts'), 'export default () => 2\n')],
    ['a removed file', () => rmSync(path.join(root, 'functions/v2/index.get.ts'))],
  ]
  for (const [what, change] of changes) {
    change()
    const now = sourceFingerprint(root).fingerprint
    t.notOk(seen.has(now), what)
    seen.add(now)
  }
  writeFileSync(path.join(root, 'lib/kernel/other.txt'), 'not a source')
  t.ok(seen.has(sourceFingerprint(root).fingerprint), 'other files do not count')
})

t.test('fresh only with a stamp of the sources as they are', async (t) => {
  const root = fakeRoot(t)
  t.notOk(isFresh(root), 'no build')
  mkdirSync(path.join(root, 'build'))
  writeFileSync(path.join(root, 'build', stampName), 'not json')
  t.notOk(isFresh(root), 'an unreadable stamp')
  stamp(root)
  t.ok(isFresh(root))
  t.equal(
    compiledCli(root, { warn: () => t.fail('no warning') }),
    path.join(root, 'build/runtime/cli.js'),
    'fresh: no build, the compiled cli (no bundle made)',
  )
  mkdirSync(path.join(root, 'build/bundle'))
  writeFileSync(path.join(root, 'build/bundle/cli.js'), '')
  t.equal(compiledCli(root, { warn: () => t.fail('no warning') }), path.join(root, 'build/bundle/cli.js'), 'its bundle when there is one')
  writeFileSync(path.join(root, 'lib/kernel/a.ts'), 'export const a = 3\n')
  t.notOk(isFresh(root))
})

t.test('stale: built in a child process; when that fails, the sources with a warning', async (t) => {
  const built = fakeRoot(t, 0)
  t.equal(compiledCli(built, { warn: () => t.fail('no warning') }), path.join(built, 'build/runtime/cli.js'))
  const failing = fakeRoot(t, 3)
  const warnings: string[] = []
  t.equal(compiledCli(failing, { warn: (line) => warnings.push(line) }), path.join(failing, 'runtime/cli.ts'))
  t.match(warnings, [/could not be built \(exit 3\): running the TypeScript sources/])
  const noNode: string[] = []
  t.equal(compiledCli(failing, { execPath: path.join(failing, 'no-such-node'), warn: (line) => noNode.push(line) }), path.join(failing, 'runtime/cli.ts'))
  t.match(noNode, [/ENOENT/])
})

t.test('GATEWAY_RUN_SOURCES=1 runs the sources without looking at build/', async (t) => {
  const root = fakeRoot(t, 3)
  process.env.GATEWAY_RUN_SOURCES = '1'
  t.teardown(() => delete process.env.GATEWAY_RUN_SOURCES)
  t.equal(compiledCli(root, { warn: () => t.fail('no build tried') }), path.join(root, 'runtime/cli.ts'))
})

t.test('dev, new and hq run from the sources; every other command compiled', async (t) => {
  for (const args of [['dev'], ['--port', '8080', 'dev'], ['--data-dir=/srv/x', 'new', 'endpoint', 'GET', '/api/v2/x'], ['hq', '--config', 'hq.json']]) {
    t.ok(runsFromSources(args), args.join(' '))
  }
  for (const args of [[], ['start'], ['--data-dir', 'new', 'start'], ['--config', 'dev', 'status'], ['token', 'revoke', 'new'], ['--help']]) {
    t.notOk(runsFromSources(args), args.join(' ') || '(nothing)')
  }
})
