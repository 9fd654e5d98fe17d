// Starts the real gateway as a child process (`node runtime/cli.ts start`) on port 0 and a
// given data dir, and finds its port from the structured start-up log line. Every answer a
// test then fetches from it is checked against the OpenAPI document (./checked-origins.ts).
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { checkAnswersFrom } from './checked-origins.ts'
import { treeCpuTicks } from './cpu-progress.ts'
import { generousMs } from './until.ts'

export const cliPath = fileURLToPath(new URL('../../runtime/cli.ts', import.meta.url))

export interface GatewayProcess {
  child: ChildProcess
  port: number
  url: string
  output: () => string
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

/** Which CLI to run (a project copy's) and with which command (start or dev). */
export interface CliChoice {
  cli?: string
  command?: 'start' | 'dev'
  /** Node flags before the entry (e.g. npm start's, bench/start-flags.ts). */
  nodeFlags?: string[]
  /**
   * Why this gateway's answers are not held to the tree's OpenAPI document (./checked-origins.ts):
   * only for a gateway whose routes are not the tree's (a project copy with functions of a test's own).
   */
  uncheckedAnswers?: string
}

export function runCli(
  args: string[],
  env: Record<string, string> = {},
  where: { cli?: string; cwd?: string } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', where.cli ?? cliPath, ...args], {
      cwd: where.cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.stderr.on('data', (chunk) => (stderr += chunk))
    child.on('exit', (code) => resolve({ code, stdout, stderr }))
  })
}

export function startGatewayProcess(dataDir: string, env: Record<string, string> = {}, args: string[] = [], choice: CliChoice = {}): Promise<GatewayProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--disable-warning=ExperimentalWarning', ...(choice.nodeFlags ?? []), choice.cli ?? cliPath, choice.command ?? 'start', ...args],
      {
        env: { ...process.env, PORT: '0', GATEWAY_DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let output = ''
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)))
    // Waits while the gateway makes progress (writes its start-up log, or works: a first start
    // builds the tree): on a busy machine a start takes many times what it takes on an idle
    // one; one that neither writes nor gets CPU for a minute is stuck.
    let progress = ''
    let movedAt = Date.now()
    const timer = setInterval(() => {
      const now = `${output.length} ${child.pid === undefined ? 0 : treeCpuTicks(child.pid)}`
      if (now !== progress) {
        progress = now
        movedAt = Date.now()
      } else if (Date.now() - movedAt > generousMs) {
        clearInterval(timer)
        child.kill('SIGKILL')
        reject(new Error(`gateway did not start (no output and no CPU for ${generousMs / 1000} s):\n${output}`))
      }
    }, 1000)
    const onData = (chunk: Buffer) => {
      output += chunk
      const match = /"port":(\d+)[^\n]*"msg":"gateway started"/.exec(output)
      if (match) {
        clearInterval(timer)
        const port = Number(match[1])
        // Its answers are held to the document from now on (./checked-origins.ts), until it exits.
        if (!choice.uncheckedAnswers) child.once('exit', checkAnswersFrom(`http://127.0.0.1:${port}`))
        resolve({
          child,
          port,
          url: `http://127.0.0.1:${port}`,
          output: () => output,
          stop: (signal = 'SIGTERM') => {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal)
            return exited
          },
        })
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.on('exit', (code) => {
      clearInterval(timer)
      reject(new Error(`gateway exited with ${code}:\n${output}`))
    })
  })
}

/**
 * A node command line (program and arguments) to run without the test runner's preloads and
 * coverage, which it adds to every child it sees spawned (NODE_OPTIONS, NODE_V8_COVERAGE):
 * for a child whose V8 feedback a test reads (collecting coverage gathers feedback from a
 * function's first call, which a gateway never does). Spawn it as `spawn(command, args)`.
 */
export function withoutRunnerHooks(nodeArgs: string[]): { command: string; args: string[] } {
  return { command: 'env', args: ['-u', 'NODE_OPTIONS', '-u', 'NODE_V8_COVERAGE', process.execPath, ...nodeArgs] }
}
