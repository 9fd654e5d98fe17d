// The bundle the gateway process runs (build/bundle/cli.js): the compiled tree's CLI with
// every module it imports, the packages' too, joined by esbuild into a few files. A process
// that loads ~400 modules one by one keeps a record, a compile-cache entry and a resolution
// for each, and its start-up resolves enough paths for V8 to optimize Node's path functions
// with its optimizing compiler: measured on an idle gateway, 79 → 74 MB, and 68 MB once
// bin/compiled-tree.js's own walk of the sources no longer did the same
// (docs/decisions/0004-one-bundle-built-on-the-box.md). bin/compiled-tree.js runs
// bundle/cli.js when it is there. The tree stays: the processes the gateway starts (the
// radio's child, the certificate child, the backup check's worker) run it.
//
// Each module keeps finding what it found next to itself: import.meta and a package's
// __dirname are rewritten to name the module's own file in build/, so web/, package.json,
// functions/ and those children's files are the same paths as in the compiled tree.
import { readFileSync, rmSync } from 'node:fs'
import path from 'node:path'
import type { Plugin } from 'esbuild'

/** Where in build/ the bundle is written, and its entry (what bin/compiled-tree.js runs). */
export const bundleFolder = 'bundle'
export const bundleEntry = { name: 'cli', source: 'runtime/cli.js' }

/**
 * Packages left out of the bundle, imported from node_modules as before: those that find
 * files of their own at run time (serialport's native binding, herdsman's adapters: both
 * only in the radio's child), ws's optional native helpers (absent: ws falls back), and
 * those only tests and tools load.
 */
export const externalPackages = ['zigbee-herdsman', 'serialport', '@serialport/*', 'bufferutil', 'utf-8-validate', 'playwright-core', 'esbuild']

// Every output file starts by noting its own URL, which each module's place is relative to
// (in code, so a CommonJS module keeps no import.meta: esbuild would take it for an ES
// module and not wrap it), and a `require`: ES modules have none, and the packages written as
// CommonJS call it for Node's own modules.
const bundleUrl = '__bundleUrl'
const banner = `import { createRequire as __bundleCreateRequire } from 'node:module'; const ${bundleUrl} = import.meta.url, require = __bundleCreateRequire(${bundleUrl});`

/**
 * A module's source with import.meta (url, filename, dirname, main) and CommonJS's
 * __dirname and __filename naming its own file, given as a path relative to the bundle's
 * folder (every output file lies directly in it, so each module's place is known before
 * esbuild decides which output file holds it). A bundled module is never the process's main.
 */
export function placeModule(code: string, fromBundle: string): string {
  const own = `new URL(${JSON.stringify(fromBundle.split(path.sep).join('/'))}, ${bundleUrl})`
  const dir = `new URL('.', ${own})`
  const filePath = (url: string) => `decodeURIComponent(${url}.pathname)`
  const replaced = code.replace(/\bimport\.meta\.(url|filename|dirname|main)\b/g, (_match, key: string) => {
    if (key === 'url') return `${own}.href`
    if (key === 'filename') return filePath(own)
    if (key === 'dirname') return `${filePath(dir)}.slice(0, -1)`
    return 'false'
  })
  if (!/\b__(dirname|filename)\b/.test(replaced)) return replaced
  // Declared inside the module (esbuild wraps a CommonJS module in a function of its own).
  return `var __filename = ${filePath(own)}, __dirname = ${filePath(dir)}.slice(0, -1);\n${replaced}`
}

function placeModules(outdir: string): Plugin {
  return {
    name: 'place-modules',
    setup(build) {
      build.onLoad({ filter: /\.[cm]?js$/ }, (args) => {
        const code = readFileSync(args.path, 'utf8')
        if (!/\bimport\.meta\b|\b__(dirname|filename)\b/.test(code)) return undefined
        return { contents: placeModule(code, path.relative(outdir, args.path)), loader: 'js', resolveDir: path.dirname(args.path) }
      })
    },
  }
}

/**
 * Bundles the compiled tree at `tree` into tree/bundle. Throws when esbuild is missing or
 * fails; the caller decides what a gateway without a bundle runs (the compiled tree).
 */
export async function bundleTree(tree: string): Promise<number> {
  const { build } = await import('esbuild')
  const outdir = path.join(tree, bundleFolder)
  const result = await build({
    entryPoints: [{ in: path.join(tree, bundleEntry.source), out: bundleEntry.name }],
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    external: externalPackages,
    banner: { js: banner },
    // Whitespace and syntax only: names stay, so a stack trace names the functions (one that
    // two modules share is renamed, `parse2`; the source maps say which); the maps beside the
    // files give the compiled tree's lines to a process started with --enable-source-maps.
    // Not keepNames: it wraps every named function in a call that redefines its `name`, also
    // each closure a request creates (3,187 calls in the bundle).
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    sourcemap: 'linked',
    plugins: [placeModules(outdir)],
    logLevel: 'silent',
    metafile: true,
  }).catch((error: unknown) => {
    // Never half a bundle: bin/compiled-tree.js runs the bundle whenever its entry exists.
    rmSync(outdir, { recursive: true, force: true })
    throw error
  })
  return Object.keys(result.metafile.inputs).length
}
