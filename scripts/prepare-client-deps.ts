// `npm test`'s pretest: installs the TypeScript client's own packages (clients/typescript:
// openapi-typescript, TypeScript 5, Redocly CLI...) with `npm ci` when they are missing or older
// than its package-lock.json. They live apart from the root's: openapi-typescript needs
// TypeScript 5 as a peer and the root's is 7.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export const clientDirs = ['typescript', 'hey-api'].map((name) => join(import.meta.dirname, '..', 'clients', name))

const stampOf = (dir: string) => join(dir, 'node_modules', '.installed-lock-sha256')
const lockHash = (dir: string) =>
  createHash('sha256')
    .update(readFileSync(join(dir, 'package-lock.json')))
    .digest('hex')

/** Whether `dir`'s packages are installed from its current package-lock.json. */
export function installed(dir: string): boolean {
  return existsSync(stampOf(dir)) && readFileSync(stampOf(dir), 'utf8') === lockHash(dir)
}

export function prepareClientDeps(dirs = clientDirs): string[] {
  const lines: string[] = []
  for (const dir of dirs) {
    if (installed(dir)) continue
    lines.push(`npm test: installing ${dir}'s packages (npm ci)`)
    const run = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--prefix', dir], { stdio: ['ignore', 'ignore', 'inherit'] })
    if (run.status === 0) writeFileSync(stampOf(dir), lockHash(dir))
    else lines.push(`npm test: npm ci --prefix ${dir} failed; the client tests will fail`)
  }
  return lines
}

if (import.meta.main) {
  for (const line of prepareClientDeps()) console.error(line)
}
