// A gateway process on a LAN address inside a test's network namespace, and the clients that
// talk to it from other addresses of that namespace (tests/helpers/lan-client.ts, the
// connection flooder): nothing is loopback, so the gateway treats every client as a LAN host.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Test } from 'tap'
import { sendControl } from '../../runtime/control/control.ts'
import { makeNamespace, type Namespace } from './netns.ts'
import { checkAnswer, checkAnswersFrom } from './checked-origins.ts'
import { cliPath } from './process.ts'
import { until } from './until.ts'

const lanClientPath = path.resolve(import.meta.dirname, 'lan-client.ts')
const flooderPath = path.resolve(import.meta.dirname, 'connection-flooder.ts')

/** A child inside the namespace whose output is collected; stopped at teardown. */
export function runInside(t: Test, ns: Namespace, args: string[], env: Record<string, string> = {}): { child: ChildProcess; output: () => string } {
  const [command, ...prefix] = ns.prefix
  const child = spawn(command!, [...prefix, ...args], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] })
  let output = ''
  child.stdout!.on('data', (chunk) => (output += chunk))
  child.stderr!.on('data', (chunk) => (output += chunk))
  t.teardown(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.stdin!.end()
    child.kill('SIGTERM')
    await exited
  })
  return { child, output: () => output }
}

export const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, any>)

export interface LanGateway {
  ns: Namespace
  address: string
  port: number
  url: string
  dataDir: string
  /** The gateway's output (its log, LOG_LEVEL info) so far. */
  output: () => string
  /** The HTTPS port, once the gateway says it listens there (its certificate is made after start). */
  securePort: () => Promise<number>
  /** A token the way a person gets one: the button (control socket), then generate from `from`. */
  token: (client: LanClient, from: string, name: string) => Promise<string>
}

/** Starts a namespace with `addresses` (the first is the gateway's) and the gateway on it. */
export async function lanGateway(t: Test, addresses: string[], config: Record<string, unknown> = {}): Promise<LanGateway> {
  const ns = makeNamespace(t, addresses)
  const address = addresses[0]!
  const work = mkdtempSync(path.join(tmpdir(), 'gw-lan-'))
  t.teardown(() => rmSync(work, { recursive: true, force: true }))
  const dataDir = path.join(work, 'data')
  const configFile = path.join(work, 'gateway.config.json')
  writeFileSync(configFile, JSON.stringify({ host: address, port: 0, dataDir, mdns: { enabled: false }, radio: { kind: 'simulated' }, ...config }))
  const gateway = runInside(t, ns, [process.execPath, '--disable-warning=ExperimentalWarning', cliPath, 'start', '--config', configFile], { LOG_LEVEL: 'info' })
  await until(() => /"msg":"gateway started"/.test(gateway.output()), 'the gateway started in the namespace', 60_000)
  const port = Number(/"port":(\d+)[^\n]*"msg":"gateway started"/.exec(gateway.output())![1])
  const url = `http://${address}:${port}`
  // Its answers to the namespace's clients are held to the OpenAPI document (lanClient, ./checked-origins.ts).
  t.teardown(checkAnswersFrom(url))
  return {
    ns,
    address,
    port,
    url,
    dataDir,
    output: gateway.output,
    securePort: async () => {
      const pattern = /"port":(\d+)[^\n]*"msg":"HTTPS listening"/
      await until(() => pattern.test(gateway.output()), 'the gateway listening with HTTPS', 120_000)
      return Number(pattern.exec(gateway.output())![1])
    },
    token: async (client, from, name) => {
      await sendControl(dataDir, 'button.press')
      const answer = await client.send({ kind: 'http', url: `${url}/api/v2/accesstoken/generate?name=${name}`, from })
      const token = (JSON.parse(String(answer.body ?? '{}')) as { token?: { token?: string } }).token?.token
      if (!token) throw new Error(`no token: ${JSON.stringify(answer)}`)
      return token
    },
  }
}

export interface LanClient {
  send: (command: Record<string, unknown>) => Promise<Record<string, any>>
}

/** The client process inside the namespace (tests/helpers/lan-client.ts). */
export function lanClient(t: Test, ns: Namespace): LanClient {
  const { child } = runInside(t, ns, [process.execPath, '--disable-warning=ExperimentalWarning', lanClientPath])
  const waiting = new Map<number, (result: Record<string, any>) => void>()
  let buffer = ''
  let next = 0
  child.stdout!.setEncoding('utf8')
  child.stdout!.on('data', (chunk: string) => {
    buffer += chunk
    const lines = buffer.split('\n')
    buffer = lines.pop()!
    for (const line of jsonLines(lines.join('\n'))) {
      waiting.get(line.id)?.(line)
      waiting.delete(line.id)
    }
  })
  return {
    send: (command) =>
      new Promise((resolve, reject) => {
        const id = ++next
        waiting.set(id, (answer) => {
          // An answer of a registered gateway outside its document fails this call (checked-origins.ts).
          if (command.kind === 'http' && typeof answer.status === 'number') {
            try {
              const method = String(command.method ?? 'GET')
              checkAnswer(String(command.url), { method, status: answer.status, contentType: answer.contentType ?? null, body: String(answer.body ?? '') })
            } catch (error) {
              reject(error)
              return
            }
          }
          resolve(answer)
        })
        child.stdin!.write(`${JSON.stringify({ ...command, id })}\n`)
      }),
  }
}

export interface FloodCounts {
  connected: number
  open: number
  closed: number
  errors: number
}

/** The connection flooder (tests/helpers/connection-flooder.ts) inside the namespace. */
export function lanFlood(
  t: Test,
  ns: Namespace,
  plan: { host: string; port: number; addresses: string[]; perAddress: number; request?: string; reconnectMs?: number; repeatMs?: number; pipeline?: number },
) {
  const command = `ulimit -n 65536 2>/dev/null; exec "$0" "$@"`
  const [nsCommand, ...prefix] = ns.prefix
  const child = spawn(
    nsCommand!,
    [...prefix, 'sh', '-c', command, process.execPath, '--disable-warning=ExperimentalWarning', flooderPath, JSON.stringify({ reconnectMs: 5, ...plan })],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  )
  let latest: FloodCounts = { connected: 0, open: 0, closed: 0, errors: 0 }
  let mostOpen = 0
  let buffer = ''
  child.stdout!.setEncoding('utf8')
  child.stdout!.on('data', (chunk: string) => {
    buffer += chunk
    const lines = buffer.split('\n')
    buffer = lines.pop()!
    for (const line of lines) if (line) latest = JSON.parse(line) as FloodCounts
    mostOpen = Math.max(mostOpen, latest.open)
  })
  t.teardown(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.stdin!.end()
    child.kill()
    await exited
  })
  return { counts: () => latest, mostOpen: () => mostOpen }
}
