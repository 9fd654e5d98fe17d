// The memory and module-loading flags are written in four places (npm start, npm run gateway, bin/gateway.js,
// the systemd unit); the benchmarks read them from npm start. They must agree.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { startEntry, startEnv, startFlags } from '../../bench/start-flags.ts'

const root = path.resolve(import.meta.dirname, '../..')
const read = (file: string) => readFileSync(path.join(root, file), 'utf8')
const pinnedFlags = (text: string) => [...text.matchAll(/--max-(?:old|semi)-space-size=\d+|--expose-gc|--preserve-symlinks/g)].map((m) => m[0])

t.test('npm start, npm run gateway, bin/gateway.js and the systemd unit set the same heap limits and module loading', async (t) => {
  const flags = startFlags()
  t.same(pinnedFlags(flags.join(' ')), ['--max-old-space-size=256', '--max-semi-space-size=8', '--expose-gc', '--preserve-symlinks'])
  t.ok(flags.includes('--disable-warning=ExperimentalWarning'))
  const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts
  t.same(pinnedFlags(scripts.gateway), pinnedFlags(flags.join(' ')), 'npm run gateway')
  t.same(pinnedFlags(read('bin/gateway.js')), pinnedFlags(flags.join(' ')), 'bin/gateway.js')
  t.same(pinnedFlags(/^ExecStart=.*$/m.exec(read('deploy/tracker-gateway.service'))![0]), pinnedFlags(flags.join(' ')), 'the systemd unit')
})

t.test('npm start, npm run gateway, the unit and the installed command run bin/gateway.js (the compiled tree)', async (t) => {
  t.equal(startEntry(), path.join(root, 'bin/gateway.js'))
  const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts
  t.match(scripts.gateway, / bin\/gateway\.js$/)
  t.match(read('deploy/tracker-gateway.service'), /^ExecStart=\S+ .* \/opt\/tracker-gateway\/bin\/gateway\.js start$/m)
  t.match(read('deploy/install.sh'), '"$here/opt/tracker-gateway/bin/gateway.js" "$@"')
})

t.test('the environment npm start adds', async (t) => {
  t.match(startEnv(), { NODE_COMPILE_CACHE: String })
})
