// The compiled tree `npm start`, the systemd unit and the `gateway` command run: every .ts
// file of lib/, runtime/ and functions/ with its types stripped by Node's own stripper
// (positions kept, so a stack trace's line and column are the source's), written as .js
// under build/ with its relative imports renamed to match. A process that imports only .js
// never loads Node's TypeScript stripper (amaro, about 18 MB of memory). The files the code
// finds next to itself (web/, package.json) are relative links back to the checkout, so an
// edited board page still shows on the next reload. bin/compiled-tree.js decides when to
// build (a fingerprint of the sources) and runs this file in a short-lived child process.
import { stripTypeScriptTypes } from 'node:module'
import { mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { sourceFingerprint, sourceFolders, stampName } from '../../bin/compiled-tree.js'

/** What build/ links back to: the files the code reads next to itself, not code. */
export const linkedParts = ['web', 'package.json']

/**
 * Relative module specifiers ending in .ts, in quotes, renamed to .js: static and dynamic
 * imports, re-exports and `new URL('./x.ts', import.meta.url)` (the radio child's fork).
 * Only specifiers starting with ./ or ../ are touched: bare packages never end in .ts here.
 */
export function renameSpecifiers(code: string): string {
  return code.replace(/(['"`])(\.{1,2}\/[^'"`\s]*?)\.ts\1/g, '$1$2.js$1')
}

/** One source file as the JavaScript the compiled tree holds. */
export function compileSource(code: string): string {
  return renameSpecifiers(stripTypeScriptTypes(code, { mode: 'strip' }))
}

/**
 * Compiles root's sources into root/build, replacing an earlier build as a whole (a
 * half-written tree is never what a gateway starts from). `finish` adds to the tree before it
 * is placed (the bundle). Returns the number of files compiled.
 */
export async function buildTree(root: string, finish: (tree: string) => Promise<void> = async () => {}): Promise<number> {
  const { files, fingerprint } = sourceFingerprint(root)
  const partial = path.join(root, `build.partial-${process.pid}`)
  rmSync(partial, { recursive: true, force: true })
  for (const file of files) {
    const target = path.join(partial, file.replace(/\.ts$/, '.js'))
    mkdirSync(path.dirname(target), { recursive: true })
    try {
      writeFileSync(target, compileSource(readFileSync(path.join(root, file), 'utf8')))
    } catch (error) {
      rmSync(partial, { recursive: true, force: true })
      throw new Error(`${file}: ${(error as Error).message.split('\n')[0]}`)
    }
  }
  for (const part of linkedParts) symlinkSync(path.join('..', part), path.join(partial, part))
  try {
    await finish(partial)
  } catch (error) {
    rmSync(partial, { recursive: true, force: true })
    throw error
  }
  writeFileSync(path.join(partial, stampName), `${JSON.stringify({ fingerprint, files: files.length, folders: sourceFolders })}\n`)
  const build = path.join(root, 'build')
  const old = path.join(root, `build.old-${process.pid}`)
  try {
    renameSync(build, old)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  placeTree(partial, build)
  rmSync(old, { recursive: true, force: true })
  return files.length
}

/**
 * Renames a finished tree into place. When a tree is there already, another start built
 * the same sources at the same moment and won the rename: its tree is as good as this one.
 */
export function placeTree(partial: string, build: string): void {
  try {
    renameSync(partial, build)
  } catch (error) {
    if (!['ENOTEMPTY', 'EEXIST'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error
    rmSync(partial, { recursive: true, force: true })
  }
}
