// The product's TypeScript sources (lib/, runtime/, functions/), for tests that check what
// imports what by reading the files.
import { readdirSync, statSync } from 'node:fs'
import path from 'node:path'

export const projectRoot = path.resolve(import.meta.dirname, '../..')

/** Every .ts file under dir, at any depth. */
export function typeScriptFilesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name)
    if (statSync(full).isDirectory()) return typeScriptFilesUnder(full)
    return name.endsWith('.ts') ? [full] : []
  })
}

/** The product's sources (absolute paths). */
export const productSources = (): string[] => ['lib', 'runtime', 'functions'].flatMap((dir) => typeScriptFilesUnder(path.join(projectRoot, dir)))
