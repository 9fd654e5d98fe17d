// A local Node "mirror" for deploy/install.sh (--node-dist DIR), like https://nodejs.org/dist/vX:
// one tarball whose bin/node and bin/npm run this machine's, and its SHASUMS256.txt.
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { requireExecutable, xzDep } from './system-deps.ts'

export const nodeVersion = (JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8')) as { devDependencies: { node: string } })
  .devDependencies.node
export const tarballName = `node-v${nodeVersion}-linux-x64`

/** A mirror directory like https://nodejs.org/dist/vX: one tarball whose bin/node and bin/npm run this machine's. */
export function makeMirror(dir: string, corrupt = false): string {
  requireExecutable(xzDep)
  const tree = path.join(dir, 'tree', tarballName, 'bin')
  mkdirSync(tree, { recursive: true })
  writeFileSync(path.join(tree, 'node'), `#!/bin/sh\nexec ${process.execPath} "$@"\n`, { mode: 0o755 })
  const npmCli = process.env.npm_execpath ?? execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim()
  writeFileSync(path.join(tree, 'npm'), `#!/bin/sh\nexec ${process.execPath} ${npmCli} "$@"\n`, { mode: 0o755 })
  const mirror = path.join(dir, 'mirror')
  mkdirSync(mirror)
  const tarball = path.join(mirror, `${tarballName}.tar.xz`)
  execFileSync('tar', ['-cJf', tarball, '-C', path.join(dir, 'tree'), tarballName])
  const digest = createHash('sha256').update(readFileSync(tarball)).digest('hex')
  writeFileSync(
    path.join(mirror, 'SHASUMS256.txt'),
    `${corrupt ? '0'.repeat(64) : digest}  ${tarballName}.tar.xz\n${'1'.repeat(64)}  node-v${nodeVersion}-linux-arm64.tar.xz\n`,
  )
  return mirror
}
