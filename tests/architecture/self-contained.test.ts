// No file in the repository may send a reader to a document outside it: the rulings on the
// API are stated in docs/api.md, the architecture in docs/architecture.md, measurements in
// docs/performance.md and docs/radio.md. A reference to a working paper the reader cannot
// open (the project's spec folder, a rulings file by section number, a design document, a
// notes folder) fails here, naming the file and line.
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { repositoryFiles, repositoryRoot } from './repository-files.ts'

// Spelled in pieces so that this file does not match itself.
const rulings = 'decision' + 's'
const outside: Array<[string, RegExp]> = [
  ['the spec folder', new RegExp(['shared', 'spec'].join('/'), 'i')],
  ['the shared folder', new RegExp([String.raw`\bshared`, '(notes|DESIGN)'].join('/'), 'i')],
  ['the rulings file', new RegExp(String.raw`\b${rulings}(\.md|\s*§|\s*\(?§)|\(${rulings}[:)]`, 'i')],
  ['the design document', new RegExp(['DESIGN', 'md'].join(String.raw`\.`))],
  ['a notes file', new RegExp(String.raw`\bnotes` + String.raw`/[\w-]+\.md`, 'i')],
  ['the route table file', new RegExp(['routes', 'tsv'].join(String.raw`\.`), 'i')],
  ['the specification file', new RegExp(['gateway-api', 'md'].join(String.raw`\.`), 'i')],
]

const binary = /\.(png|jpe?g|gif|ico|sqlite|db|gz|xz|woff2?)$/i

/** Every reference to an outside document in the given files: "file:line: what (text)". */
export function outsideReferences(root: string, files: string[]): string[] {
  const found: string[] = []
  for (const file of files) {
    if (binary.test(file) || file === 'package-lock.json' || !existsSync(path.join(root, file))) continue
    readFileSync(path.join(root, file), 'utf8')
      .split('\n')
      .forEach((line, index) => {
        for (const [what, pattern] of outside) {
          if (pattern.test(line)) found.push(`${file}:${index + 1}: ${what} (${line.trim().slice(0, 120)})`)
        }
      })
  }
  return found
}

t.test('no file in the repository refers to a document outside it', async (t) => {
  const files = repositoryFiles()
  t.ok(files.length > 100, `the repository's files were listed (${files.length})`)
  t.same(outsideReferences(repositoryRoot, files), [])
})

t.test('the check finds each kind of outside reference', async (t) => {
  const samples = [
    `// see ${['shared', 'spec', 'x.md'].join('/')}`,
    `// (${rulings} §5)`,
    `// (${rulings}: a ruling)`,
    `// ${['DESIGN', 'md'].join('.')}, Storage`,
    `// ${['notes', 'radio.md'].join('/')} §5`,
    `// ${['routes', 'tsv'].join('.')}`,
  ]
  const dir = t.testdir(Object.fromEntries(samples.map((text, index) => [`f${index}.ts`, `ok line\n${text}\n`])))
  const found = outsideReferences(
    dir,
    samples.map((_, index) => `f${index}.ts`),
  )
  t.equal(found.length, samples.length, found.join('\n'))
  t.match(found[0], /^f0\.ts:2: the spec folder/)
  t.same(outsideReferences(dir, []), [])
  const clean = t.testdir({ 'a.md': 'The rulings are in docs/api.md; a reviewed decision; notes on the radio.\n' })
  t.same(outsideReferences(clean, ['a.md']), [], 'ordinary words are not references')
})
