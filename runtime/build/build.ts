// `npm run build` (also run by deploy/install.sh, and by bin/gateway.js in a child process
// when build/ no longer matches the sources): the functions manifest brought up to date with
// functions/ (as `gateway start` from the sources would), then the compiled tree written
// with the gateway's bundle in it. Exits 1 naming the file when a source does not compile or
// a function breaks a rule. A bundle that cannot be made (esbuild missing for this machine)
// is said and left out: the gateway then runs the compiled tree, heavier but the same.
import path from 'node:path'
import { ensureFreshManifest } from '../manifest/manifest-gen.ts'
import { bundleFolder, bundleTree } from './bundle.ts'
import { buildTree } from './compile.ts'

export const projectRoot = path.resolve(import.meta.dirname, '../..')

/** `bundle` makes the bundle in a finished tree (a test gives one that fails, as a machine without esbuild's binary would). */
export async function build(root = projectRoot, bundle: (tree: string) => Promise<number> = bundleTree): Promise<string> {
  const regenerated = await ensureFreshManifest(path.join(root, 'functions'))
  let bundled = ''
  const files = await buildTree(root, async (tree) => {
    try {
      bundled = `, ${await bundle(tree)} modules bundled into ${bundleFolder}/`
    } catch (error) {
      bundled = `; no bundle (${(error as Error).message.split('\n')[0]}): the gateway runs the compiled tree`
    }
  })
  return `${regenerated ? `functions/_manifest.gen.ts was stale (${regenerated}): regenerated; ` : ''}${path.join(root, 'build')}: ${files} files compiled${bundled}`
}

/** The command: a summary or the error on stderr, and the exit code. */
export async function main(args: string[], root = projectRoot, print = (line: string) => console.error(line), bundle = bundleTree): Promise<number> {
  try {
    const summary = await build(root, bundle)
    if (!args.includes('--quiet') || summary.startsWith('functions/') || summary.includes('no bundle')) print(`build: ${summary}`)
    return 0
  } catch (error) {
    print(`build: ${(error as Error).message}`)
    return 1
  }
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2))
