// How `npm start` runs the gateway (node flags such as the heap ceiling, and the compile
// cache), so the benchmarks measure the process as it is deployed.
import { readFileSync } from 'node:fs'
import path from 'node:path'

const root = path.resolve(import.meta.dirname, '..')

const startScript = () => (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start

/** The file package.json's start script runs (bin/gateway.js: the compiled tree), as a path. */
export function startEntry(): string {
  const entry = /\s(\S+\.[jt]s)\s+start\b/.exec(startScript())?.[1]
  if (!entry) throw new Error('package.json: the start script names no .js or .ts file before "start"')
  return path.join(root, entry)
}

/** The `--…` node flags of package.json's start script (before the file it runs). */
export function startFlags(): string[] {
  const script = startScript()
  const beforeCli = script.slice(0, script.indexOf(path.relative(root, startEntry())))
  return beforeCli.split(/\s+/).filter((word) => word.startsWith('--'))
}

/** The environment `npm start` adds: Node's compile cache (about 30 MB less memory). */
export function startEnv(): NodeJS.ProcessEnv {
  return { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? path.join(root, 'node_modules/.cache/node-compile-cache') }
}
