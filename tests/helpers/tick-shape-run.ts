// Runs a long-lived `gateway` command (start, hq) as a child with the tick-shape probe
// (tests/helpers/tick-shape-probe.ts) and returns what V8 says of nextTick's literal sites
// once the probe has queued ticks and collected garbage as a memory-reducing collection does.
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import type { Test } from 'tap'
import { cliPath, withoutRunnerHooks } from './process.ts'
import { until } from './until.ts'

const probe = path.join(import.meta.dirname, 'tick-shape-probe.ts')

export interface TickShapeRun {
  /** "MONOMORPHIC" or "MEGAMORPHIC" for each computed-key site of nextTick's literal. */
  states: string[]
  output: string
}

/** `ready` in the child's output says it is up; `dir` holds the probe's answer. */
export async function tickShapeAfterCollections(t: Test, cliArgs: string[], ready: string, dir: string, env: NodeJS.ProcessEnv = {}): Promise<TickShapeRun> {
  const out = path.join(dir, 'tick-shape.json')
  // Without the runner's coverage: V8 collecting coverage gathers feedback from a function's first call.
  const { command, args } = withoutRunnerHooks([
    '--allow-natives-syntax',
    '--fuzzing',
    '--expose-gc',
    '--disable-warning=ExperimentalWarning',
    '--import',
    probe,
    cliPath,
    ...cliArgs,
  ])
  const child = spawn(command, args, { env: { ...process.env, ...env, TICK_SHAPE_OUT: out }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  t.teardown(() => child.kill('SIGKILL'))
  await until(() => output.includes(ready) || child.exitCode !== null, ready)
  if (!output.includes(ready)) throw new Error(`never "${ready}":\n${output}`)
  child.kill('SIGUSR2')
  await until(() => existsSync(out) || child.exitCode !== null, 'the probe has read the feedback')
  return { states: JSON.parse(readFileSync(out, 'utf8')) as string[], output }
}
