#!/usr/bin/env node
// Runs runtime/cli.ts with the Node 24 the project brings (node_modules/.bin/node), so the
// `gateway` command works even where the system Node is older.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const projectNode = `${root}node_modules/.bin/node`
const nodeBinary = existsSync(projectNode) ? projectNode : process.execPath
// Node keeps the type-stripped and compiled modules here, so a restart skips the stripper.
const env = { ...process.env, NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? `${root}node_modules/.cache/node-compile-cache` }
// The heap ceiling and young generation fitted to a 1 GB box (docs/operations.md, "Limits").
const memoryFlags = ['--max-old-space-size=256', '--max-semi-space-size=8']
const child = spawn(nodeBinary, [...memoryFlags, '--disable-warning=ExperimentalWarning', `${root}runtime/cli.ts`, ...process.argv.slice(2)], { stdio: 'inherit', env })
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)))
