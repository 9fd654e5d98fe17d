// The compiler of the compiled tree: types stripped in place, relative .ts specifiers renamed.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { compileSource, placeTree, renameSpecifiers } from '../../../runtime/build/compile.ts'

t.test('relative .ts specifiers become .js, in every form the code uses', async (t) => {
  const source = [
    "import { a } from './a.ts'",
    'import type { B } from "../b/b.ts"',
    "export { c } from '../../lib/c.ts'",
    "export * from './d.ts'",
    "const e = await import('./e.ts')",
    "const child = new URL('./zigbee-child.ts', import.meta.url)",
    'const tpl = await import(`./f.ts`)',
  ].join('\n')
  t.equal(
    renameSpecifiers(source),
    [
      "import { a } from './a.js'",
      'import type { B } from "../b/b.js"',
      "export { c } from '../../lib/c.js'",
      "export * from './d.js'",
      "const e = await import('./e.js')",
      "const child = new URL('./zigbee-child.js', import.meta.url)",
      'const tpl = await import(`./f.js`)',
    ].join('\n'),
  )
})

t.test('packages, file-name checks and mismatched quotes are left alone', async (t) => {
  for (const untouched of [
    "import ws from 'ws'",
    "if (name.endsWith('.ts')) files.push(name)",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: source text of a template literal, compiled by the test
    'const stem = `${version}/${name}.ts`',
    "const pattern = 'x.ts'",
    'const odd = \'./a.ts"',
    "const spaced = './a b.ts'",
  ]) {
    t.equal(renameSpecifiers(untouched), untouched, untouched)
  }
})

t.test("types are stripped where they stand, so lines and columns stay the source's", async (t) => {
  const source =
    "import { type A, b } from './b.ts'\nexport const n: number = b as number\nexport interface I { x: string }\nconst fail = () => { throw new Error('here') }\n"
  const compiled = compileSource(source)
  t.equal(compiled.split('\n').length, source.split('\n').length)
  t.match(compiled, /^import \{\s+b \} from '\.\/b\.js'/)
  t.match(compiled, /^export const n\s+= b\s+$/m)
  t.notMatch(compiled, /interface|number/)
  t.equal(compiled.split('\n')[3]!.indexOf('throw'), source.split('\n')[3]!.indexOf('throw'))
})

t.test('syntax that cannot be stripped is an error', async (t) => {
  t.throws(() => compileSource('enum Colour { Red }\n'))
})

t.test('a finished tree is renamed into place; one already there (a build at the same moment) stays', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'place-tree-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const tree = (name: string, content: string) => {
    mkdirSync(path.join(dir, name))
    writeFileSync(path.join(dir, name, 'cli.js'), content)
    return path.join(dir, name)
  }
  const build = path.join(dir, 'build')
  placeTree(tree('partial-1', 'first'), build)
  t.equal(readFileSync(path.join(build, 'cli.js'), 'utf8'), 'first')
  placeTree(tree('partial-2', 'second'), build)
  t.equal(readFileSync(path.join(build, 'cli.js'), 'utf8'), 'first', 'the tree in place is kept')
  t.notOk(existsSync(path.join(dir, 'partial-2')), 'the other one dropped')
  t.throws(() => placeTree(path.join(dir, 'missing'), path.join(dir, 'elsewhere')), { code: 'ENOENT' })
})
