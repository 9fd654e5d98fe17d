// docs/architecture.md lists, by folder, every project file one POST /api/v2/activeorders runs
// (with its WebSocket frame and its webhook). This test makes the list true by construction:
// it runs the create on a real gateway in a child process under V8's coverage
// (tests/architecture/fixtures/one-create.ts: three creates after a warm-up, each in its own
// window, then an idle window), takes the files of lib/, runtime/ and functions/ in which a
// function ran in every window, and fails on a file the list misses or a file the list names
// that did not run. A file is only required in the list when the create ran a function of it
// that does not also run when idle: a timer firing in every window (on a slow machine a
// window can outlast the clock watch's one-second check) does not make its file the path's.
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { repositoryRoot } from './repository-files.ts'

const fixture = path.join(import.meta.dirname, 'fixtures', 'one-create.ts')
const heading = '### Every file one create runs'

interface ScriptCoverage {
  url: string
  functions: { functionName: string; ranges: { startOffset: number; count: number }[] }[]
}

/** The functions of project files (lib/, runtime/, functions/) that ran in a coverage file, by file (each as name@offset). */
export function functionsRun(coverageFile: string, root: string): Map<string, Set<string>> {
  const prefix = pathToFileURL(root).href.replace(/\/?$/, '/')
  const { result } = JSON.parse(readFileSync(coverageFile, 'utf8')) as { result: ScriptCoverage[] }
  const files = new Map<string, Set<string>>()
  for (const script of result) {
    if (!script.url.startsWith(prefix)) continue
    const file = script.url.slice(prefix.length)
    if (!/^(lib|runtime|functions)\//.test(file)) continue
    // A function's first range is its whole body: its count is how often it was called.
    const ran = script.functions.filter((fn) => (fn.ranges[0]?.count ?? 0) > 0).map((fn) => `${fn.functionName}@${fn.ranges[0]!.startOffset}`)
    if (ran.length > 0) files.set(file, new Set(ran))
  }
  return files
}

/**
 * The files the create runs, from its windows and an idle one: `ran`, files a function of
 * which ran in every window; `own`, those of them in which a function ran that the idle
 * window did not run (a timer's file is in `ran` when it fired in every window, never in `own`).
 */
export function createPath(windows: Map<string, Set<string>>[], idle: Map<string, Set<string>>): { ran: Set<string>; own: Set<string> } {
  const ran = new Set([...windows[0]!.keys()].filter((file) => windows.every((window) => window.has(file))))
  const own = new Set([...ran].filter((file) => windows.some((window) => [...window.get(file)!].some((fn) => !idle.get(file)?.has(fn)))))
  return { ran, own }
}

/** The files the document's table under `heading` names: its folder column joined to each name of the files column. */
export function listedFiles(markdown: string): Set<string> {
  const lines = markdown.split('\n')
  const start = lines.indexOf(heading)
  if (start < 0) throw new Error(`docs/architecture.md has no "${heading}" section`)
  const files = new Set<string>()
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith('#')) break
    const row = /^\| `([\w/-]+\/)` \| ([^|]*) \|/.exec(line)
    if (!row) continue
    for (const name of row[2]!.matchAll(/[\w.-]+\.ts\b/g)) files.add(`${row[1]}${name[0]}`)
  }
  return files
}

t.test('the files one create runs are exactly the files docs/architecture.md lists', async (t) => {
  const dir = t.testdir()
  const coverageDir = path.join(dir, 'coverage')
  const dataDir = path.join(dir, 'data')
  mkdirSync(coverageDir)
  mkdirSync(dataDir)
  const run = spawnSync(process.execPath, ['--disable-warning=ExperimentalWarning', fixture], {
    env: { ...process.env, NODE_V8_COVERAGE: coverageDir, TRACE_DATA_DIR: dataDir },
    encoding: 'utf8',
    timeout: 300_000,
  })
  if (run.status !== 0) throw new Error(`one-create.ts exited ${run.status ?? run.signal}: ${run.stderr}`)
  const { windows, idle } = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { windows: string[]; idle: string }
  t.equal(windows.length, 3, 'three traced creates')
  const { ran, own } = createPath(
    windows.map((file) => functionsRun(file, repositoryRoot)),
    functionsRun(idle, repositoryRoot),
  )
  t.ok(own.has('functions/v2/activeorders.post.ts') && own.has('runtime/workers/webhook-dispatcher.ts'), 'the trace holds the function and the delivery')
  const listed = listedFiles(readFileSync(path.join(repositoryRoot, 'docs/architecture.md'), 'utf8'))
  t.same([...own].filter((file) => !listed.has(file)).sort(), [], 'every file the create runs is listed')
  t.same([...listed].filter((file) => !ran.has(file)).sort(), [], 'every file listed runs')
  t.comment(`one create runs ${ran.size} project files, ${own.size} of them beyond what runs when idle`)
})

t.test("createPath keeps what every window ran, and tells the create's own files from a timer's", async (t) => {
  const window = (entries: Record<string, string[]>) => new Map(Object.entries(entries).map(([file, fns]) => [file, new Set(fns)]))
  const windows = [
    window({ 'lib/a.ts': ['create@0'], 'lib/clock.ts': ['tick@0', 'now@9'], 'lib/once.ts': ['x@0'] }),
    window({ 'lib/a.ts': ['create@0'], 'lib/clock.ts': ['tick@0'] }),
  ]
  const { ran, own } = createPath(windows, window({ 'lib/clock.ts': ['tick@0'] }))
  t.same([...ran].sort(), ['lib/a.ts', 'lib/clock.ts'])
  t.same([...own].sort(), ['lib/a.ts', 'lib/clock.ts'], 'now@9 ran in a window, not when idle')
  t.same([...createPath([windows[1]!], window({ 'lib/clock.ts': ['tick@0'] })).own], ['lib/a.ts'], 'only the tick: not the path')
})

t.test('listedFiles reads the folder and files columns of the section only', async (t) => {
  const doc = [
    '## Before',
    '| `lib/x/` | not.ts | not this section |',
    heading,
    '| folder | files | why |',
    '|---|---|---|',
    '| `lib/store/` | collection.ts, datafile.ts | durable.ts is named in the why column |',
    '| `functions/v2/` | activeorders.post.ts | |',
    '## After',
    '| `lib/y/` | nor.ts | |',
  ].join('\n')
  t.same([...listedFiles(doc)], ['lib/store/collection.ts', 'lib/store/datafile.ts', 'functions/v2/activeorders.post.ts'])
})
