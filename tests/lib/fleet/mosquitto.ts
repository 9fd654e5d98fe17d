// A real Mosquitto broker for tests: loopback only, a free port, a config file and a
// persistence directory in a tmp dir. restart() keeps port and persisted sessions, so a
// test can take the broker away and bring it back.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { freePort } from '../../../bench/free-port.ts'
import { findExecutable, mosquittoDep, requireExecutable } from '../../helpers/system-deps.ts'
import { generousMs } from '../../helpers/until.ts'

export const mosquittoBinary = findExecutable(mosquittoDep)

export interface BrokerOptions {
  dir: string
  /** Extra lines for the listener (TLS files, password_file ...). */
  lines?: string[]
  anonymous?: boolean
}

export interface Broker {
  port: number
  url: string
  start(): Promise<void>
  stop(): Promise<void>
  /** SIGKILL: what it had not saved (its in-memory queues, sessions since start) is lost. */
  kill(): Promise<void>
}

// One way to find a free loopback port, shared with the benchmarks.
export { freePort }

export async function startBroker(options: BrokerOptions, scheme = 'mqtt'): Promise<Broker> {
  if (!mosquittoBinary) requireExecutable(mosquittoDep)
  const port = await freePort()
  const configFile = path.join(options.dir, `mosquitto-${port}.conf`)
  writeFileSync(
    configFile,
    [
      // Running as root, Mosquitto would otherwise switch to a user that cannot read the tmp dir.
      ...(process.getuid?.() === 0 ? ['user root'] : []),
      'persistence true',
      `persistence_location ${options.dir}/`,
      `persistence_file mosquitto-${port}.db`,
      'log_dest none',
      `listener ${port} 127.0.0.1`,
      `allow_anonymous ${options.anonymous ?? true}`,
      ...(options.lines ?? []),
      '',
    ].join('\n'),
  )
  let child: ChildProcess | null = null
  const end = async (signal: NodeJS.Signals) => {
    const running = child
    child = null
    if (!running || running.exitCode !== null) return
    const exited = new Promise((resolve) => running.once('exit', resolve))
    running.kill(signal)
    await exited
  }
  const broker: Broker = {
    port,
    url: `${scheme}://127.0.0.1:${port}`,
    async start() {
      child = spawn(mosquittoBinary!, ['-c', configFile], { stdio: ['ignore', 'ignore', 'pipe'] })
      let stderr = ''
      child.stderr!.on('data', (chunk) => (stderr += chunk))
      const started = child
      const exited = new Promise<never>((_resolve, reject) => started.once('exit', (code) => reject(new Error(`mosquitto exited (${code}): ${stderr}`))))
      exited.catch(() => undefined)
      await Promise.race([waitForPort(port), exited])
    },
    stop: () => end('SIGTERM'),
    kill: () => end('SIGKILL'),
  }
  await broker.start()
  return broker
}

/** Every 25 ms, for as long as a busy machine may take to start a broker (not 200 tries, 5 s). */
async function waitForPort(port: number): Promise<void> {
  const deadline = Date.now() + generousMs
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1')
      socket.once('connect', () => {
        socket.destroy()
        resolve(true)
      })
      socket.once('error', () => resolve(false))
    })
    if (open) return
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`mosquitto did not open port ${port} within ${generousMs / 1000} s`)
}

export function makePasswordFile(dir: string, user: string, password: string): string {
  const file = path.join(dir, 'passwd')
  execFileSync('mosquitto_passwd', ['-b', '-c', file, user, password], { stdio: 'ignore' })
  return file
}
