// A throw-away copy of the project for tests that change functions/ (dev reload, a stale
// manifest at start, `gateway new endpoint`): runtime/, functions/ and the test tree's
// contract table and helpers are copied, everything else (lib/, web/, node_modules/) is linked, so
// the copy's runtime finds the copy's functions/ and the real libraries.
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const projectRoot = fileURLToPath(new URL('../../', import.meta.url))

export interface ProjectCopy {
  root: string
  functions: string
  cli: string
  remove(): void
}

export function copyProject(): ProjectCopy {
  const root = mkdtempSync(path.join(os.tmpdir(), 'gateway-project-'))
  for (const dir of ['runtime', 'functions', 'tests/contract', 'tests/helpers']) {
    cpSync(path.join(projectRoot, dir), path.join(root, dir), { recursive: true })
  }
  mkdirSync(path.join(root, 'tests/functions/v2'), { recursive: true })
  mkdirSync(path.join(root, 'tests/functions/v1'), { recursive: true })
  cpSync(path.join(projectRoot, 'package.json'), path.join(root, 'package.json'))
  for (const linked of ['lib', 'web', 'node_modules']) symlinkSync(path.join(projectRoot, linked), path.join(root, linked))
  return {
    root,
    functions: path.join(root, 'functions'),
    cli: path.join(root, 'runtime/cli.ts'),
    remove: () => rmSync(root, { recursive: true, force: true }),
  }
}
