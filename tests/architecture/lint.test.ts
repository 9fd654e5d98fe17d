// The linter and formatter (Biome, configured in biome.jsonc) over every file of the
// repository: a finding fails here with Biome's own report, so `npm test` keeps the tree
// as `npm run lint` wants it. `npm run lint:fix` applies the safe fixes and the formatting.
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import t from 'tap'
import { repositoryFiles, repositoryRoot } from './repository-files.ts'

const biome = path.join(repositoryRoot, 'node_modules', '.bin', 'biome')
const checked = /\.(ts|js|css|html)$/

t.test('Biome finds nothing to report in the repository', async (t) => {
  const files = repositoryFiles().filter((file) => checked.test(file))
  t.ok(files.length > 500, `the repository's sources were listed (${files.length})`)
  const run = spawnSync(biome, ['ci', '--reporter=summary', '--max-diagnostics=50', ...files], { cwd: repositoryRoot, encoding: 'utf8' })
  t.equal(run.status, 0, `biome ci: ${run.stdout}${run.stderr}`.slice(0, 20_000))
})

t.test('the check fails on a finding (a file with an unused variable, outside the repository list)', async (t) => {
  const run = spawnSync(biome, ['lint', '--stdin-file-path=probe.ts'], {
    cwd: repositoryRoot,
    encoding: 'utf8',
    input: 'export function f() {\n  const unused = 1\n}\n',
  })
  t.not(run.status, 0, 'an unused variable is reported')
})
