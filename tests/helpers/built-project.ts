// A throw-away copy of the project's product files (bin/, lib/, runtime/, functions/, web/,
// package.json) in a fresh 0700 temporary directory, as a fresh clone would be, with the
// real node_modules linked: for tests that build the compiled tree and run it.
import { spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const projectRoot = fileURLToPath(new URL('../../', import.meta.url))
export const productParts = ['bin', 'lib', 'runtime', 'functions', 'web', 'package.json']

export interface BuiltProject {
  root: string
  /** Runs `npm run build`'s script in the copy. */
  build(): { status: number | null; stderr: string }
  remove(): void
}

export function copyForBuild(): BuiltProject {
  const root = mkdtempSync(path.join(os.tmpdir(), 'gateway-built-'))
  for (const part of productParts) cpSync(path.join(projectRoot, part), path.join(root, part), { recursive: true })
  symlinkSync(path.join(projectRoot, 'node_modules'), path.join(root, 'node_modules'))
  return {
    root,
    build: () => spawnSync(process.execPath, ['--disable-warning=ExperimentalWarning', path.join(root, 'runtime/build/build.ts')], { encoding: 'utf8' }),
    remove: () => rmSync(root, { recursive: true, force: true }),
  }
}
