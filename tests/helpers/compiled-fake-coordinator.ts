// The fake coordinator (zigbee-fake-child.ts, zigbee-fake-adapter.ts) as plain JavaScript,
// for a radio process that runs the compiled tree as a box runs it: under --lite-mode
// (lib/radio/zigbee-process-flags.ts) Node cannot load a .ts module, and a TypeScript preload
// would also keep lite mode off. Each module is compiled with the build's own compileSource
// (runtime/build/compile.ts) into a folder inside node_modules/.cache, at the path it has in
// the checkout, so its bare imports (zigbee-herdsman) resolve to the project's packages; its
// imports of the compiled folders (lib/, runtime/, functions/) name a built tree's files by
// their absolute URLs, so the fake and the radio process share one copy of each module (also
// under --preserve-symlinks, which the start flags pass: links would have made two). Used by
// the memory benchmark and tests.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { sourceFolders } from '../../bin/compiled-tree.js'
import { compileSource } from '../../runtime/build/compile.ts'

/** The checkout these aids are compiled from. */
const sourceRoot = fileURLToPath(new URL('../../', import.meta.url))

/** The preloads a compiled radio process can be given, by their source (relative to the checkout). */
export const fakeCoordinatorSources = {
  /** Loaded into a gateway: the fake only in its radio process (bench/fake-coordinator-preload.ts). */
  gatewayPreload: 'bench/fake-coordinator-preload.ts',
  /** Loaded into a radio process directly (ZigbeeProcessRadio's execArgv option). */
  radioPreload: 'tests/helpers/zigbee-fake-child.ts',
}

/** Relative specifiers of the compiled code (compileSource has renamed .ts to .js, types gone). */
const relativeSpecifier = /(['"`])(\.{1,2}\/[^'"`\s]*?\.js)\1/g

/**
 * Compiles each entry (a source path relative to the checkout) and every relative .ts module
 * it imports, outside the compiled folders, into `into`; its imports of those folders become
 * URLs of builtRoot/build/<folder>. Returns the compiled entries' paths, in the order given.
 */
export function compileFakeCoordinator(into: string, builtRoot: string, entries: readonly string[]): string[] {
  rmSync(into, { recursive: true, force: true })
  mkdirSync(into, { recursive: true })
  // The cache is inside node_modules, where Node looks for no package.json of ours.
  writeFileSync(path.join(into, 'package.json'), '{"type": "module"}\n')
  const done = new Set<string>()
  const queue = [...entries]
  while (queue.length > 0) {
    const source = queue.shift()!
    if (done.has(source)) continue
    done.add(source)
    const code = compileSource(readFileSync(path.join(sourceRoot, source), 'utf8')).replace(relativeSpecifier, (whole, quote: string, specifier: string) => {
      const imported = path.join(path.dirname(source), specifier.replace(/\.js$/, '.ts'))
      if (!sourceFolders.includes(imported.split(path.sep)[0])) {
        queue.push(imported)
        return whole
      }
      return `${quote}${pathToFileURL(path.join(builtRoot, 'build', imported.replace(/\.ts$/, '.js'))).href}${quote}`
    })
    const target = path.join(into, source.replace(/\.ts$/, '.js'))
    mkdirSync(path.dirname(target), { recursive: true })
    writeFileSync(target, code)
  }
  return entries.map((entry) => path.join(into, entry.replace(/\.ts$/, '.js')))
}
