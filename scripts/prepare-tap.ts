// tap bakes its plugin list into node_modules at `tap build`. A fresh install still has the
// default list, whose TypeScript plugin (ts-node) breaks with TypeScript 7; rebuild when the
// package.json "tap" section has changed since the last build.
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'

const root = new URL('../', import.meta.url)
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { tap?: unknown }
const wanted = createHash('sha256')
  .update(JSON.stringify(pkg.tap ?? {}))
  .digest('hex')
const marker = new URL('node_modules/.cache/tap-build.sha256', root)
const built = new URL('node_modules/@tapjs/test/test-built/', root)

const current = existsSync(marker) ? readFileSync(marker, 'utf8') : ''
if (current !== wanted || !existsSync(built)) {
  execFileSync(new URL('node_modules/.bin/tap', root).pathname, ['build'], { stdio: ['ignore', 'ignore', 'inherit'] })
  mkdirSync(new URL('node_modules/.cache/', root), { recursive: true })
  writeFileSync(marker, wanted)
}
