// docs/architecture.md describes the code by its file names: the request-path diagram, the
// folder table, the prose. Each name must exist, so a rename or a move that forgets the doc
// fails here. Full paths (lib/..., runtime/..., functions/..., ...) are checked from the
// repository root, a glob must match something; in the folder table a bare file name is
// looked up in the row's folder, its parent, or the folder of a path named before it on the row.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { repositoryRoot } from './repository-files.ts'

/** Files the doc names as examples of what a developer would add; they do not exist on purpose. */
const examples = new Set(['functions/v2/things.id.get.ts', 'tests/functions/v2/things.id.get.test.ts', 'functions/v2/x.get.ts'])

const fullPath = /(?<![\w/.-])((?:lib|runtime|functions|tests|web|docs|scripts|bench|deploy|examples|bin)\/[\w./*-]*)/g
const tableRow = /^\| `((?:lib|runtime|functions|web|tests)\/[\w/-]*)` \|/
const bareName = /(?<![\w/.*-])([\w-]+\.(?:ts|js|css|html))\b/g

function globExists(root: string, pattern: string): boolean {
  const dir = path.join(root, path.dirname(pattern))
  const name = new RegExp(
    `^${path
      .basename(pattern)
      .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')}$`,
  )
  return existsSync(dir) && readdirSync(dir).some((entry) => name.test(entry))
}

/** The file names in a document that name nothing in the repository at `root`. */
export function missingPaths(text: string, root: string): string[] {
  const missing = new Set<string>()
  for (const line of text.split('\n')) {
    const named: string[] = []
    for (const match of line.matchAll(fullPath)) {
      const name = match[1].replace(/[.,:;)]+$/, '')
      if (name.includes('<') || examples.has(name)) continue
      named.push(name)
      const found = name.includes('*') ? globExists(root, name) : existsSync(path.join(root, name))
      if (!found) missing.add(name)
    }
    const row = tableRow.exec(line)
    if (!row) continue
    const folder = row[1]
    const places = [folder, path.dirname(folder), ...named.map((name) => (name.endsWith('/') ? name : path.dirname(name)))]
    for (const match of line.matchAll(bareName)) {
      if (!places.some((place) => existsSync(path.join(root, place, match[1])))) missing.add(`${folder}${match[1]}`)
    }
  }
  return [...missing]
}

t.test('every file docs/architecture.md names exists', async (t) => {
  const text = readFileSync(path.join(repositoryRoot, 'docs/architecture.md'), 'utf8')
  t.ok((text.match(fullPath) ?? []).length > 50, 'the doc names files')
  t.same(missingPaths(text, repositoryRoot), [])
})

t.test('a name that does not exist is found, in the diagram, in prose and in the folder table', async (t) => {
  const root = t.testdir({ runtime: { host: { 'router.ts': '', 'dispatch.ts': '' }, 'cli.ts': '' }, lib: { radio: { 'zigbee-child.ts': '' } } })
  const doc = [
    '  runtime/host/router.ts     the route: auth gate',
    '  runtime/host/gone.ts       renamed away',
    'See `runtime/host/*.ts` and `runtime/nothing/*.ts`.',
    '| `runtime/host/` | router.ts, dispatch.ts, missing.ts; cli.ts; lib/radio/x.ts and zigbee-child.ts |',
    'A new functions/v2/things.id.get.ts (an example) and lib/<domain>.',
  ].join('\n')
  t.same(missingPaths(doc, root).sort(), ['lib/radio/x.ts', 'runtime/host/gone.ts', 'runtime/host/missing.ts', 'runtime/nothing/*.ts'])
})
