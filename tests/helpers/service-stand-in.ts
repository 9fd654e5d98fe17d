// The smallest stand-in for systemd that `gateway upgrade` needs (issue 46's tests): one
// service, its ExecStartPre (the start-up check) run before every start, Restart= (always by
// default) after a short pause with NRestarts counted, and `systemctl start|stop|restart|
// show|is-active|enable|disable|daemon-reload` answered through a Unix socket by a
// `systemctl` script put first on PATH (systemctl-shim.ts). powerCut() kills the service
// with SIGKILL and restarts nothing; start() starts it again. tests/helpers/unit-supervisor.ts
// runs one from a unit file (the Debian chroot tests). watchPath() plays a .path unit with
// PathExists= (deploy/tracker-gateway-rollout.path): while the file exists and its service is
// not running, the service (a oneshot command) is run, in its own process group (its cgroup:
// killPathRuns() kills it with every process it started, as a power cut does).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { closeSync, existsSync, mkdirSync, openSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

export interface ServiceSpec {
  command: string
  args: string[]
  env: NodeJS.ProcessEnv
  cwd: string
  /** The ExecStartPre command lines, in order; one that fails stops the start unless `mayFail` (the unit's "-"). */
  preStart?: { command: string; args: string[]; mayFail?: boolean }[]
  /** Where the service's output and the pre-start's go. */
  logFile: string
  restartMs?: number
  /** The unit's Restart=: after which exits the service is started again (default always). */
  restart?: 'always' | 'on-failure' | 'no'
}

/** What `systemctl` prints and exits with. */
interface Answer {
  code: number
  out: string
}

export class ServiceStandIn {
  readonly binDir: string
  readonly socket: string
  #child: ChildProcess | null = null
  #active = 'inactive'
  #restarts = 0
  #wanted = false
  #server: net.Server
  #spec: ServiceSpec
  #pathTimer: NodeJS.Timeout | undefined
  readonly #pathRuns = new Set<ChildProcess>()

  constructor(dir: string, spec: ServiceSpec) {
    this.#spec = spec
    this.binDir = path.join(dir, 'bin')
    this.socket = path.join(dir, 'systemctl.sock')
    mkdirSync(this.binDir, { recursive: true })
    const shim = path.join(import.meta.dirname, 'systemctl-shim.ts')
    writeFileSync(
      path.join(this.binDir, 'systemctl'),
      `#!/bin/sh\nSERVICE_STAND_IN_SOCKET='${this.socket}' exec '${process.execPath}' --disable-warning=ExperimentalWarning '${shim}' "$@"\n`,
      { mode: 0o755 },
    )
    this.#server = net.createServer((connection) => {
      let text = ''
      connection.on('data', (chunk) => {
        text += chunk
        if (!text.endsWith('\n')) return
        void this.#command(JSON.parse(text) as string[]).then(
          (answer) => connection.end(`${JSON.stringify(answer)}\n`),
          (error: Error) => connection.end(`${JSON.stringify({ code: 1, err: error.message })}\n`),
        )
      })
    })
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(this.socket, resolve))
  }

  /** PATH with the stand-in's systemctl first. */
  path(): string {
    return `${this.binDir}:${process.env.PATH}`
  }

  get mainPid(): number {
    return this.#child?.pid ?? 0
  }

  get activeState(): string {
    return this.#active
  }

  async #command(args: string[]): Promise<Answer> {
    const [verb] = args
    const now = args.includes('--now')
    if (verb === 'start' || (verb === 'enable' && now)) await this.start()
    else if (verb === 'stop' || (verb === 'disable' && now)) await this.stop()
    else if (verb === 'restart') {
      await this.stop()
      await this.start()
    } else if (verb === 'show') {
      // As systemctl: only the properties asked for (--property=A,B), else all.
      const asked = args.filter((arg) => arg.startsWith('--property=')).flatMap((arg) => arg.slice('--property='.length).split(','))
      const all: [string, string | number][] = [
        ['ActiveState', this.#active],
        ['MainPID', this.mainPid],
        ['NRestarts', this.#restarts],
      ]
      return {
        code: 0,
        out: all
          .filter(([name]) => asked.length === 0 || asked.includes(name))
          .map(([name, value]) => `${name}=${value}\n`)
          .join(''),
      }
    }
    // systemctl's own exit codes: 0 active, 3 not.
    else if (verb === 'is-active') return { code: this.#active === 'active' ? 0 : 3, out: `${this.#active}\n` }
    else if (verb !== 'daemon-reload' && verb !== 'enable' && verb !== 'disable') throw new Error(`stand-in systemctl: ${verb} is not known`)
    return { code: 0, out: '' }
  }

  async start(): Promise<void> {
    if (this.#wanted) return
    this.#wanted = true
    await this.#run()
  }

  async #run(): Promise<void> {
    const spec = this.#spec
    const out = openSync(spec.logFile, 'a')
    this.#active = 'activating'
    for (const pre of spec.preStart ?? []) {
      const ran = spawnSync(pre.command, pre.args, { env: spec.env, stdio: ['ignore', out, out] })
      if (ran.status !== 0 && !pre.mayFail) {
        closeSync(out)
        return this.#exited(false)
      }
    }
    if (!this.#wanted) return closeSync(out)
    const child = spawn(spec.command, spec.args, { env: spec.env, cwd: spec.cwd, stdio: ['ignore', out, out] })
    closeSync(out)
    this.#child = child
    this.#active = 'active'
    child.on('exit', (code) => {
      if (this.#child !== child) return
      this.#child = null
      if (this.#wanted) this.#exited(code === 0)
    })
  }

  /** The service ended by itself (or its pre-start failed): started again as Restart= says. */
  #exited(clean: boolean): void {
    const policy = this.#spec.restart ?? 'always'
    if (policy === 'no' || (policy === 'on-failure' && clean)) {
      this.#wanted = false
      this.#active = clean ? 'inactive' : 'failed'
      return
    }
    this.#restarts++
    this.#active = 'activating'
    void sleep(this.#spec.restartMs ?? 300).then(() => (this.#wanted && this.#child === null ? this.#run() : undefined))
  }

  async stop(): Promise<void> {
    this.#wanted = false
    const child = this.#child
    this.#active = 'inactive'
    if (!child) return
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
    await exited
    clearTimeout(timer)
    this.#child = null
  }

  /** As a power cut does to the service: SIGKILL, and nothing restarts it. */
  async powerCut(): Promise<void> {
    this.#wanted = false
    const child = this.#child
    this.#child = null
    this.#active = 'inactive'
    if (!child) return
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGKILL')
    await exited
  }

  /** Runs `command` whenever `file` exists and the command is not already running (PathExists=). */
  watchPath(file: string, command: { command: string; args: string[]; env: NodeJS.ProcessEnv; logFile: string }): void {
    let running = false
    this.#pathTimer = setInterval(() => {
      if (running || !existsSync(file)) return
      running = true
      const out = openSync(command.logFile, 'a')
      const child = spawn(command.command, command.args, { env: { ...command.env, PATH: this.path() }, stdio: ['ignore', out, out], detached: true })
      closeSync(out)
      this.#pathRuns.add(child)
      child.on('exit', () => {
        this.#pathRuns.delete(child)
        running = false
      })
    }, 200)
  }

  /** Whether the .path unit's service runs now. */
  get pathRunning(): boolean {
    return this.#pathRuns.size > 0
  }

  /** SIGKILL to the .path unit's service and every process it started (its process group). */
  async killPathRuns(): Promise<void> {
    await Promise.all(
      [...this.#pathRuns].map((child) => {
        const exited = new Promise((resolve) => child.once('exit', resolve))
        try {
          process.kill(-child.pid!, 'SIGKILL')
        } catch {
          // Ended on its own meanwhile.
        }
        return exited
      }),
    )
  }

  async close(): Promise<void> {
    clearInterval(this.#pathTimer)
    await this.killPathRuns()
    await this.powerCut()
    await new Promise((resolve) => this.#server.close(resolve))
  }
}
