// A gateway process for the memory benchmark, started as `npm start` starts it (its node
// flags and compile cache, bench/start-flags.ts) but without npm in between, on an empty
// data dir of its own, with the radio the benchmark gives it. Its log lines are read for the
// radio process's pid and state; stop() ends it and everything it started.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { freePort } from './free-port.ts'
import { childPids } from './process-memory.ts'
import { startEntry, startEnv, startFlags } from './start-flags.ts'

/** The gateway's entry, as package.json's start script names it (bin/gateway.js: the compiled tree). */
export const gatewayEntry = startEntry()

export interface MemoryGatewayOptions {
  /** The config's `radio` section (default: the simulated restaurant). */
  radio?: Record<string, unknown>
  /** Node flags before the start flags' (e.g. a preload for the radio process). */
  nodeFlags?: string[]
  env?: NodeJS.ProcessEnv
}

/** One JSON log line's fields the benchmark reads. */
interface LogLine {
  msg?: string
  pid?: number
}

export class MemoryGateway {
  readonly child: ChildProcess
  readonly port: number
  readonly dataDir: string
  /** Radio processes the gateway started, in order (from its log). */
  readonly radioPids: number[] = []
  /** How many times a radio process came up. */
  radioUps = 0
  readonly #waiters: (() => void)[] = []

  private constructor(child: ChildProcess, port: number, dataDir: string) {
    this.child = child
    this.port = port
    this.dataDir = dataDir
    let buffer = ''
    child.stdout!.setEncoding('utf8')
    child.stdout!.on('data', (chunk: string) => {
      buffer += chunk
      let end: number
      while ((end = buffer.indexOf('\n')) >= 0) {
        this.#logLine(buffer.slice(0, end))
        buffer = buffer.slice(end + 1)
      }
    })
  }

  get pid(): number {
    return this.child.pid!
  }

  static async start(options: MemoryGatewayOptions = {}): Promise<MemoryGateway> {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'gateway-memory-'))
    const port = await freePort()
    const configFile = path.join(dataDir, 'gateway.config.json')
    // As run.ts's gateway: HTTPS on as in production, on any free port; no mDNS on a shared machine.
    const config = { host: '127.0.0.1', port, dataDir, mdns: { enabled: false }, tls: { port: 0 }, radio: options.radio ?? { kind: 'simulated' } }
    writeFileSync(configFile, JSON.stringify(config))
    const child = spawn(process.execPath, [...(options.nodeFlags ?? []), ...startFlags(), gatewayEntry, 'start', '--config', configFile], {
      env: { ...process.env, ...startEnv(), LOG_LEVEL: 'info', ...options.env },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const gateway = new MemoryGateway(child, port, dataDir)
    try {
      await gateway.#firstAnswer()
    } catch (error) {
      await gateway.stop()
      throw error
    }
    return gateway
  }

  #logLine(text: string): void {
    let line: LogLine
    try {
      line = JSON.parse(text) as LogLine
    } catch {
      return
    }
    if (line.msg === 'radio process started' && typeof line.pid === 'number') this.radioPids.push(line.pid)
    if (line.msg === 'radio up') this.radioUps++
    for (const wake of this.#waiters.splice(0)) wake()
  }

  async #firstAnswer(): Promise<void> {
    for (;;) {
      if (this.child.exitCode !== null || this.child.signalCode !== null)
        throw new Error(`the gateway exited (${this.child.exitCode ?? this.child.signalCode}) before answering`)
      if ((await status(this.port, '/api/v2')) === 200) return
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }

  /** Resolves when the condition holds after a log line (or at once); rejects after ms. */
  async until(condition: () => boolean, what: string, ms: number): Promise<void> {
    const deadline = Date.now() + ms
    while (!condition()) {
      if (this.child.exitCode !== null) throw new Error(`the gateway exited while waiting for ${what}`)
      const left = deadline - Date.now()
      if (left <= 0) throw new Error(`no ${what} within ${ms / 1000} s`)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 500))
        this.#waiters.push(() => {
          clearTimeout(timer)
          resolve()
        })
      })
    }
  }

  /** The radio process running now (the gateway's child), if any. */
  radioPid(): number | undefined {
    const running = new Set(childPids(this.pid))
    return this.radioPids.findLast((pid) => running.has(pid))
  }

  /** SIGTERM (the gateway stops its radio), SIGKILL after 15 s; its data dir goes. */
  async stop(): Promise<void> {
    const left = childPids(this.pid)
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve))
      this.child.kill('SIGTERM')
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 15_000)
      await exited
      clearTimeout(timer)
    }
    // A radio process ends when its gateway's IPC channel closes; one that did not is killed.
    for (const pid of left) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // Already gone.
      }
    }
    rmSync(this.dataDir, { recursive: true, force: true })
  }
}

function status(port: number, target: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: target, agent: false }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode))
    })
    req.on('error', () => resolve(undefined))
  })
}
