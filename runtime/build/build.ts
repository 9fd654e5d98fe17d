// `npm run build` (also run by deploy/install.sh, and by bin/gateway.js in a child process
// when build/ no longer matches the sources): the functions manifest brought up to date with
// functions/ (as `gateway start` from the sources would), then the compiled tree written.
// Exits 1 naming the file when a source does not compile or a function breaks a rule.
import path from 'node:path'
import { ensureFreshManifest } from '../manifest/manifest-gen.ts'
import { buildTree } from './compile.ts'

export const projectRoot = path.resolve(import.meta.dirname, '../..')

export async function build(root = projectRoot): Promise<string> {
  const regenerated = await ensureFreshManifest(path.join(root, 'functions'))
  const files = buildTree(root)
  return `${regenerated ? `functions/_manifest.gen.ts was stale (${regenerated}): regenerated; ` : ''}${path.join(root, 'build')}: ${files} files compiled`
}

/** The command: a summary or the error on stderr, and the exit code. */
export async function main(args: string[], root = projectRoot, print = (line: string) => console.error(line)): Promise<number> {
  try {
    const summary = await build(root)
    if (!args.includes('--quiet') || summary.startsWith('functions/')) print(`build: ${summary}`)
    return 0
  } catch (error) {
    print(`build: ${(error as Error).message}`)
    return 1
  }
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2))
