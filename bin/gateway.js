#!/usr/bin/env node
// The `gateway` command, and what `npm start` and the systemd unit run: the compiled tree
// (build/, rebuilt first when the sources changed: bin/compiled-tree.js) in this process.
// Started by an older system Node while the project brings its own Node 24
// (node_modules/.bin/node), it runs itself again under that one.
import { spawn } from 'node:child_process'
import { existsSync, realpathSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { commandOf, compiledCli, runsFromSources } from './compiled-tree.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const projectNode = `${root}node_modules/.bin/node`

if (existsSync(projectNode) && realpathSync(projectNode) !== realpathSync(process.execPath)) {
  // Node keeps compiled modules here, so a restart skips compiling them again.
  const env = { ...process.env, NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? `${root}node_modules/.cache/node-compile-cache` }
  // The heap ceiling and young generation fitted to a 1 GB box (docs/operations.md, "Limits"),
  // and the collection after start-up (runtime/wiring/memory-trim.ts).
  const gatewayMemoryFlags = ['--max-old-space-size=256', '--max-semi-space-size=8', '--expose-gc']
  // Headquarters (`gateway hq`, `npm run hq`) is another service on a bigger machine: Node's own defaults.
  const memoryFlags = commandOf(process.argv.slice(2)) === 'hq' ? [] : gatewayMemoryFlags
  // Modules are found by the paths they are imported by, without a realpath of each: about
  // 18 ms of a restart's 350 ms of CPU (docs/architecture.md, "The compiled tree"). The project
  // links no module (npm install, no workspaces), so no module can load twice under two paths.
  const loaderFlags = ['--preserve-symlinks']
  const child = spawn(
    projectNode,
    [...memoryFlags, ...loaderFlags, '--disable-warning=ExperimentalWarning', fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    { stdio: 'inherit', env },
  )
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)))
} else {
  const cli = runsFromSources(process.argv.slice(2)) ? `${root}runtime/cli.ts` : compiledCli(root)
  const { runCli } = await import(pathToFileURL(cli).href)
  const code = await runCli(process.argv.slice(2))
  if (code >= 0) process.exit(code)
}
