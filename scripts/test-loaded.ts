// `npm run test:loaded`: the suite (`npm test`, given tap's arguments if any) while a CPU and
// disk load keeps every core busy, as on a shared CI runner (issue 47): a test that waits for
// a guessed time instead of for what it needs fails here. The load is stress-ng (Debian's
// package, installed as scripts/prepare-test-deps.ts installs the tests' other programs,
// where this machine can), or without it a load of our own: a busy loop per core and a
// writer that syncs a file. The load is stopped when the suite ends, fails to start, or this
// script is interrupted (SIGINT, SIGTERM); it is started in its own process group, so its
// workers go with it. Prints the run time and the suite's result; exits with the suite's code.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { findExecutable, type SystemDep } from '../tests/helpers/system-deps.ts'
import { installCommands, thisMachine } from './prepare-test-deps.ts'

export const stressNgDep: SystemDep = {
  name: 'stress-ng',
  envVars: ['STRESS_NG_PATH'],
  commands: ['stress-ng'],
  locations: ['/usr/bin/stress-ng'],
  debianPackage: 'stress-ng',
}

/** A load running in its own process group. */
export interface Load {
  /** What it is, for the report. */
  description: string
  /** The processes it started (its group leaders). */
  pids: number[]
  /** False once any of its processes has ended (the run was then not loaded throughout). */
  running(): boolean
  /** Ends every process of the load, and waits for them. */
  stop(): Promise<void>
}

/** stress-ng: a CPU worker per core and a disk writer; ends by itself after 4 h if orphaned. */
export function stressNgArgs(cores: number, dir: string): string[] {
  return ['--cpu', String(cores), '--hdd', '1', '--hdd-bytes', '64M', '--temp-path', dir, '--timeout', '4h', '--quiet']
}

// Each ends by itself once this script is gone (its parent changes), even if killed hard.
const busyLoop = 'const parent = process.ppid; for (let i = 1; ; i++) if (i % 50_000_000 === 0 && process.ppid !== parent) process.exit()'
// Writes 8 MB and syncs it, again and again: the disk stays busy as the tests write theirs.
const diskWriter = `
const fs = require('node:fs')
const file = require('node:path').join(process.argv[1], 'load')
const block = Buffer.alloc(8 << 20, 1)
const parent = process.ppid
while (process.ppid === parent) { const fd = fs.openSync(file, 'w'); fs.writeSync(fd, block); fs.fsyncSync(fd); fs.closeSync(fd) }
`

function startGroup(commands: string[][], description: string, dir: string): Load {
  const children: ChildProcess[] = commands.map(([command, ...args]) => spawn(command, args, { detached: true, stdio: 'ignore' }))
  const exits = children.map(
    (child) => new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()))),
  )
  let ended = false
  for (const child of children) {
    child.once('exit', () => (ended = true))
    child.once('error', () => (ended = true))
  }
  return {
    description,
    pids: children.flatMap((child) => (child.pid === undefined ? [] : [child.pid])),
    running: () => !ended && children.every((child) => child.pid !== undefined),
    async stop() {
      for (const child of children) killGroup(child, 'SIGTERM')
      const late = setTimeout(() => {
        for (const child of children) killGroup(child, 'SIGKILL')
      }, 10_000)
      await Promise.all(exits)
      clearTimeout(late)
      // Workers that outlived their leader (stress-ng's, killed hard) go with the group.
      for (const child of children) killGroup(child, 'SIGKILL')
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return
  try {
    process.kill(-child.pid, signal)
  } catch {
    // The group is gone already.
  }
}

export function stressNgLoad(executable: string, cores = os.availableParallelism()): Load {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'test-loaded-'))
  const args = stressNgArgs(cores, dir)
  return startGroup([[executable, ...args]], `stress-ng ${args.join(' ')}`, dir)
}

export function ownLoad(cores = os.availableParallelism()): Load {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'test-loaded-'))
  const spinners = Array.from({ length: cores }, () => [process.execPath, '-e', busyLoop])
  return startGroup(
    [...spinners, [process.execPath, '-e', diskWriter, dir]],
    `our own load: ${cores} busy loop(s) and a disk writer that syncs 8 MB at a time`,
    dir,
  )
}

/** stress-ng if it is here or can be installed (as the pretest installs), else our own load. */
export function chooseLoad(log: (line: string) => void, env: NodeJS.ProcessEnv = process.env): Load {
  let executable = findExecutable(stressNgDep, env)
  if (!executable) {
    const run = (command: string[]) => spawnQuietly(command)
    const commands = installCommands([stressNgDep], thisMachine(env, run))
    if (commands) {
      log(`test:loaded: installing Debian's stress-ng with apt-get`)
      if (commands.every(run)) executable = findExecutable(stressNgDep, env)
    }
  }
  if (executable) return stressNgLoad(executable)
  log('test:loaded: stress-ng not available (sudo apt-get install -y stress-ng); using our own load')
  return ownLoad()
}

function spawnQuietly(command: string[]): boolean {
  return spawnSync(command[0], command.slice(1), { stdio: ['ignore', 'ignore', 'inherit'] }).status === 0
}

export interface LoadedRun {
  /** The suite's exit code (1 when it could not be started or was stopped by a signal). */
  code: number
  seconds: number
  /** The load ran from the suite's start to its end. */
  loadedThroughout: boolean
}

export interface LoadedOptions {
  /** The suite's command line. */
  suite: string[]
  load: () => Load
  log: (line: string) => void
  /** Aborting stops the suite (SIGTERM), then the load. */
  signal?: AbortSignal
}

/** Runs the suite under the load; the load is stopped whatever happens. */
export async function runLoaded(options: LoadedOptions): Promise<LoadedRun> {
  const load = options.load()
  const started = performance.now()
  let code = 1
  let loadedThroughout = false
  try {
    options.log(`test:loaded: load: ${load.description}`)
    options.log(`test:loaded: running ${options.suite.join(' ')}`)
    // In its own process group: npm does not pass a signal on to tap, so an interrupted run
    // stops the whole group (npm, tap, the test files and what they started).
    const suite = spawn(options.suite[0], options.suite.slice(1), {
      stdio: 'inherit',
      detached: true,
      env: { ...process.env, TEST_LOAD_PIDS: load.pids.join(' ') },
    })
    const stopSuite = () => killGroup(suite, 'SIGTERM')
    options.signal?.addEventListener('abort', stopSuite, { once: true })
    code = await new Promise<number>((resolve) => {
      suite.once('error', (error) => {
        options.log(`test:loaded: the suite could not be started: ${error.message}`)
        resolve(1)
      })
      suite.once('exit', (exitCode) => resolve(exitCode ?? 1))
    })
    options.signal?.removeEventListener('abort', stopSuite)
    loadedThroughout = load.running()
  } finally {
    await load.stop()
  }
  const seconds = (performance.now() - started) / 1000
  options.log(`test:loaded: load ${loadedThroughout ? 'ran throughout' : 'ENDED BEFORE THE SUITE: this run was not loaded throughout'}; stopped`)
  const outcome = options.signal?.aborted ? `was INTERRUPTED (exit code ${code})` : code === 0 ? 'passed' : `FAILED (exit code ${code})`
  options.log(`test:loaded: the suite ${outcome} in ${(seconds / 60).toFixed(1)} min (${Math.round(seconds)} s) on ${os.availableParallelism()} cores`)
  return { code, seconds, loadedThroughout }
}

if (import.meta.main) {
  const controller = new AbortController()
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => controller.abort())
  const log = (line: string) => console.error(line)
  const args = process.argv.slice(2)
  const run = await runLoaded({ suite: ['npm', 'test', ...(args.length ? ['--', ...args] : [])], load: () => chooseLoad(log), log, signal: controller.signal })
  process.exitCode = run.code === 0 && !run.loadedThroughout ? 1 : run.code
}
