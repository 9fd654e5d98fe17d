// `npm run hq` started by an older system Node (the README's minimum, 20, which cannot load
// TypeScript): the script goes through bin/gateway.js, which runs headquarters under the
// project's own Node, as `npm start` does for the gateway. The script is run as npm runs it
// (sh -c), with the system Node first on PATH and node_modules/.bin not on it.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'

const root = path.resolve(import.meta.dirname, '../..')
const systemNode = ['/usr/bin/node', '/usr/local/bin/node'].find((file) => existsSync(file))
const version = systemNode ? execFileSync(systemNode, ['--version'], { encoding: 'utf8' }).trim() : ''
// Node strips types by default from 22.18 / 23.6: an older one is what this is about.
const [major, minor] = version.replace('v', '').split('.').map(Number)
const old = systemNode !== undefined && (major! < 22 || (major === 22 && minor! < 18))

t.test(
  "npm run hq under the system Node runs HQ under the project's Node",
  { skip: old ? false : `no system Node older than 22.18 (${version || 'none'})` },
  async (t) => {
    const script = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.hq!
    const result = spawnSync('sh', ['-c', `${script} --config /nonexistent/hq.config.json`], {
      cwd: root,
      encoding: 'utf8',
      env: { PATH: `${path.dirname(systemNode!)}:/usr/bin:/bin`, HOME: process.env.HOME ?? '/tmp' },
      timeout: 60_000,
    })
    const output = `${result.stdout}${result.stderr}`
    t.notMatch(output, /ERR_UNKNOWN_FILE_EXTENSION/, `not the system Node (${version}) loading TypeScript`)
    t.match(output, /config file not found: \/nonexistent\/hq\.config\.json/, 'HQ itself answers: it ran')
    t.equal(result.status, 1, 'with its exit code for a configuration error')
  },
)
