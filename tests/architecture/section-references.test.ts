// A reader sent to a document, or to a section of one, must find it. Every Markdown file a
// file of the repository names (docs/operations.md, docs/decisions/0001-….md) must exist, and
// every section it cites by name (docs/api.md, "Clock"; docs/architecture.md's "Local time")
// must be a heading of that document or the bold lead-in of one of its paragraphs. Comments
// are read as the reader reads them: a citation may run over two comment lines. Paths that
// are not references (an installed path, a test's sample file) are listed below.
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { repositoryFiles, repositoryRoot } from './repository-files.ts'

const binary = /\.(png|jpe?g|gif|ico|sqlite|db|gz|xz|woff2?)$/i
/** Named on purpose without being in the repository: test fixtures and samples. */
const notReferences = new Set(['a.md', 'x.md', 'v2/README.md'])
const markdownName = /(?<![\w/.-])((?:[\w-]+\/)*[\w-]+\.md)\b/g
const citation = /(?<![\w/.-])((?:[\w-]+\/)*[\w-]+\.md)(?:'s)?,?\s*\(?\s*["“]([^"”\n]{1,120})["”]/g

/** The text as a reader follows it: comment lines joined, so a citation may break across them. */
function joined(file: string, text: string): string {
  if (file.endsWith('.md')) return text.replace(/\n[ \t]*/g, ' ')
  return text.replace(/\n[ \t]*(?:\/\/+|\*(?!\/)|#+(?=\s))?[ \t]*/g, ' ')
}

/** The places a section can be: its headings and the bold lead-ins of its paragraphs. */
function sectionsOf(text: string): string[] {
  const headings = text
    .split('\n')
    .filter((line) => /^#{1,6} /.test(line))
    .map((line) => line.replace(/^#+\s*/, ''))
  const leadIns = [...text.matchAll(/\*\*([^*\n]+)\*\*/g)].map((match) => match[1]!)
  return [...headings, ...leadIns]
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
function hasSection(sections: string[], cited: string): boolean {
  const name = cited.replace(/^#+\s*/, '').replace(/[.\s]+$/, '')
  const pattern = new RegExp(`(^|[^\\w])${escapeRegex(name)}($|[^\\w])`, 'i')
  return sections.some((section) => pattern.test(section.replace(/`/g, '')))
}

function resolve(root: string, from: string, name: string): string | undefined {
  for (const candidate of [name, path.posix.join(path.posix.dirname(from), name), path.posix.join('docs', name)]) {
    if (existsSync(path.join(root, candidate))) return candidate
  }
  return undefined
}

/** Every reference in the given files to a Markdown file or a section that is not there: "file: what". */
export function brokenReferences(root: string, files: string[]): string[] {
  const found = new Set<string>()
  const sections = new Map<string, string[]>()
  for (const file of files) {
    if (binary.test(file) || file === 'package-lock.json' || !existsSync(path.join(root, file))) continue
    const text = joined(file, readFileSync(path.join(root, file), 'utf8'))
    for (const match of text.matchAll(markdownName)) {
      const name = match[1]!
      if (notReferences.has(name) || text[match.index! - 1] === '/') continue
      if (!resolve(root, file, name)) found.add(`${file}: ${name} is not in the repository`)
    }
    for (const match of text.matchAll(citation)) {
      const doc = resolve(root, file, match[1]!)
      if (!doc) continue
      if (!sections.has(doc)) sections.set(doc, sectionsOf(readFileSync(path.join(root, doc), 'utf8')))
      if (!hasSection(sections.get(doc)!, match[2]!)) found.add(`${file}: ${doc} has no section "${match[2]}"`)
    }
  }
  return [...found]
}

t.test('every document and section the repository cites exists', async (t) => {
  const files = repositoryFiles()
  t.ok(files.length > 100, `the repository's files were listed (${files.length})`)
  t.same(brokenReferences(repositoryRoot, files), [])
})

t.test('a missing document, a missing section and a citation across comment lines are found', async (t) => {
  // Names spelled in pieces, so that this file itself cites nothing that is not there.
  const md = (name: string) => `${name}.${'md'}`
  const [guide, gone, review, broken] = [md('docs/guide'), md('docs/gone'), md('review'), md('broken')]
  const root = t.testdir({
    docs: { [md('guide')]: '# Guide\n\n## Local time (issue 3)\n\nText.\n\n- **Readable from afar.** Text.\n' },
    'ok.ts': `// ${guide}, "Local time"; (${guide}, "Readable from afar")\n// as in ${guide}'s "## Local time" and ${md('guide')} "local time".\n`,
    'broken.ts': `// ${guide}, "Performance of the host"\n// notes ${review} say so\n// (${guide}, "Local\n// zone")\n`,
    [broken]: `See ${gone} and ${guide}, "Guide to\nnothing".\n`,
    'installed.service': `# /opt/app/${guide} is where an install puts it\n`,
  })
  const found = brokenReferences(root, ['ok.ts', 'broken.ts', broken, 'installed.service', guide])
  t.same(found.sort(), [
    `${broken}: ${gone} is not in the repository`,
    `${broken}: ${guide} has no section "Guide to nothing"`,
    `broken.ts: ${guide} has no section "Local zone"`,
    `broken.ts: ${guide} has no section "Performance of the host"`,
    `broken.ts: ${review} is not in the repository`,
  ])
})
