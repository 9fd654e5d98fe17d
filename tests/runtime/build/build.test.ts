// `npm run build` on a fresh copy of the project in a 0700 temporary directory (as a fresh
// clone run as root would be): a tree of .js files with no .ts import left, the files the
// code reads beside itself linked back, the gateway's bundle in it (or, when none can be
// made, a tree without one, said), a stale functions manifest regenerated first, and a
// source that does not compile named, with the earlier build left as it was.
import { existsSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { spawn } from 'node:child_process'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { compiledCli, isFresh, sourceFolders, stampName } from '../../../bin/compiled-tree.js'
import { copyForBuild } from '../../helpers/built-project.ts'
import { build as buildProject, main } from '../../../runtime/build/build.ts'

const copy = copyForBuild()
t.teardown(copy.remove)

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
}

t.test('every source becomes a .js file whose relative imports name .js files', async (t) => {
  writeFileSync(path.join(copy.root, 'functions/_manifest.gen.ts'), '// stale\n')
  t.equal(statSync(copy.root).mode & 0o777, 0o700)
  const summary = await buildProject(copy.root)
  t.match(summary, /^functions\/_manifest\.gen\.ts was stale .*: regenerated; .*\/build: \d+ files compiled, \d+ modules bundled into bundle\/$/)
  t.match(readFileSync(path.join(copy.root, 'functions/_manifest.gen.ts'), 'utf8'), "from './v2/activeorders.get.ts'")
  const build = path.join(copy.root, 'build')
  const sources = sourceFolders.flatMap((folder) =>
    filesUnder(path.join(copy.root, folder))
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
      .map((f) => path.join(folder, f)),
  )
  const compiled = sourceFolders.flatMap((folder) => filesUnder(path.join(build, folder)).map((f) => path.join(folder, f)))
  t.ok(existsSync(path.join(build, 'bundle/cli.js')), 'the bundle beside the tree')
  t.equal(compiledCli(copy.root), path.join(build, 'bundle/cli.js'), 'what bin/gateway.js runs')
  t.same(compiled.sort(), sources.map((f) => f.replace(/\.ts$/, '.js')).sort(), 'one .js file per .ts file, nothing else')
  for (const file of compiled) {
    const code = readFileSync(path.join(build, file), 'utf8')
    const left = /(['"`])\.{1,2}\/[^'"`\s]*\.ts\1/.exec(code)
    if (left) t.fail(`${file} still names ${left[0]}`)
  }
  t.match(readFileSync(path.join(build, 'functions/_manifest.gen.js'), 'utf8'), "from './v2/activeorders.get.js'")
  t.match(
    readFileSync(path.join(build, 'lib/radio/zigbee-process.js'), 'utf8'),
    "new URL('./zigbee-child.js', import.meta.url)",
    'the radio process forks the compiled child',
  )
  t.equal(realpathSync(path.join(build, 'web')), realpathSync(path.join(copy.root, 'web')))
  t.equal(realpathSync(path.join(build, 'package.json')), realpathSync(path.join(copy.root, 'package.json')))
  t.ok(isFresh(copy.root), 'the stamp matches the sources')
})

t.test('the compiled manifest generator writes the manifests the sources do (types imported from .ts)', async (t) => {
  const compiled = (await import(
    pathToFileURL(path.join(copy.root, 'build/runtime/manifest/manifest-gen.js')).href
  )) as typeof import('../../../runtime/manifest/manifest-gen.ts')
  for (const target of [compiled.gatewayTarget, compiled.hqTarget]) {
    const file = path.join(copy.root, 'functions', target.fileName)
    const before = readFileSync(file, 'utf8')
    t.equal(await compiled.ensureFreshManifest(path.join(copy.root, 'functions'), target), '', `${target.fileName}: nothing to regenerate`)
    t.equal(readFileSync(file, 'utf8'), before)
    t.match(before, /^import type \{ \w+ \} from '\.\.\/runtime\/\w+\/function-types\.ts'$/m)
  }
})

t.test('a source that does not compile is named; the earlier build stays', async (t) => {
  const stamp = readFileSync(path.join(copy.root, 'build', stampName), 'utf8')
  const broken = path.join(copy.root, 'lib/kernel/broken.ts')
  writeFileSync(broken, 'export enum Colour { Red }\n')
  t.teardown(() => writeFileSync(broken, ''))
  const lines: string[] = []
  t.equal(await main([], copy.root, (line) => lines.push(line)), 1)
  t.match(lines, [/^build: lib\/kernel\/broken\.ts: /])
  t.equal(readFileSync(path.join(copy.root, 'build', stampName), 'utf8'), stamp)
  t.notOk(
    readdirSync(copy.root).some((name) => name.startsWith('build.')),
    'no partial tree left behind',
  )
  t.notOk(isFresh(copy.root))
  t.ok(existsSync(path.join(copy.root, 'build/runtime/cli.js')))
})

t.test('npm run build: a fresh tree is built again on request, and says so', async (t) => {
  const built = copy.build()
  t.equal(built.status, 0, built.stderr)
  t.match(built.stderr, /^build: .*\/build: \d+ files compiled, \d+ modules bundled into bundle\/\n$/)
  t.ok(isFresh(copy.root))
})

t.test('the command: quiet when there is nothing to say, the error and exit 1 otherwise', async (t) => {
  const lines: string[] = []
  t.equal(await main(['--quiet'], copy.root, (line) => lines.push(line)), 0)
  t.same(lines, [], 'quiet')
  t.equal(await main([], copy.root, (line) => lines.push(line)), 0)
  t.match(lines, [/^build: .*files compiled, \d+ modules bundled into bundle\/$/])
  const broken = path.join(copy.root, 'functions/v2/broken.get.ts')
  writeFileSync(broken, 'export default (( => 1\n')
  t.teardown(() => rmSync(broken, { force: true }))
  t.equal(await main(['--quiet'], copy.root, (line) => lines.push(line)), 1)
  t.match(lines.at(-1), /^build: functions\/v2\/broken\.get\.ts: .*\(fix or remove the file, then start again\)$/)
})

t.test('two builds at once (two starts of a stale tree): both succeed, one tree stays', async (t) => {
  const results = await Promise.all(
    [0, 1].map(
      () =>
        new Promise<number | null>((resolve) => {
          const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', path.join(copy.root, 'runtime/build/build.ts'), '--quiet'], {
            stdio: 'ignore',
          })
          child.on('exit', resolve)
        }),
    ),
  )
  t.same(results, [0, 0])
  t.ok(isFresh(copy.root))
  t.same(
    readdirSync(copy.root).filter((name) => name.startsWith('build')),
    ['build'],
    'no partial or old tree left',
  )
})

t.test('no bundle possible (esbuild missing for this machine): the tree without one, said even when quiet', async (t) => {
  const lines: string[] = []
  const noEsbuild = async () => {
    throw new Error("Cannot find package 'esbuild'\n    at …")
  }
  t.equal(await main(['--quiet'], copy.root, (line) => lines.push(line), noEsbuild), 0)
  t.match(lines, [/^build: .*\/build: \d+ files compiled; no bundle \(Cannot find package 'esbuild'\): the gateway runs the compiled tree$/])
  t.ok(isFresh(copy.root))
  t.notOk(existsSync(path.join(copy.root, 'build/bundle')))
  t.equal(compiledCli(copy.root), path.join(copy.root, 'build/runtime/cli.js'), 'bin/gateway.js runs the compiled tree')
  t.equal(await main(['--quiet'], copy.root, (line) => lines.push(line)), 0)
  t.equal(compiledCli(copy.root), path.join(copy.root, 'build/bundle/cli.js'), 'and its bundle once one is made again')
})
