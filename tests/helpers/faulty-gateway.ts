// Starts tests/runtime/fixtures/faulty-gateway.ts: a real gateway process on a data dir of the
// test's that SIGKILLs itself (a power cut, as far as the process can tell) at one crash point
// of lib/orders/fault.ts, and reports what it was doing just before.
import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { createInterface } from 'node:readline'
import type { Test } from 'tap'
import type { FaultPoint } from '../../lib/orders/fault.ts'
import { checkAnswersFrom } from './checked-origins.ts'

const root = path.resolve(import.meta.dirname, '../..')

export interface FaultyGateway {
  /** http://127.0.0.1:<port> */
  base: string
  /** How the process ended (SIGKILL at the crash point). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** The fixture's last line: the trackers being paged when the crash point was reached. */
  report: Promise<FaultReport>
}

export interface FaultReport {
  fault: FaultPoint
  paging: { tracker: string; tracking: boolean }[] | null
}

export async function startFaultyGateway(t: Test, point: FaultPoint, dataDir: string): Promise<FaultyGateway> {
  const configFile = path.join(dataDir, 'gateway.config.json')
  writeFileSync(configFile, JSON.stringify({ host: '127.0.0.1', port: 0, mdns: { enabled: false } }))
  const fixture = path.join(root, 'tests/runtime/fixtures/faulty-gateway.ts')
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', fixture, point, '--config', configFile, '--data-dir', dataDir], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })))
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  let stderr = ''
  child.stderr!.on('data', (chunk: Buffer) => void (stderr += chunk.toString()))
  const lines = createInterface({ input: child.stdout! })
  const report = new Promise<FaultReport>((resolve, reject) => {
    lines.on('line', (line) => {
      const entry = parseLine(line)
      if (entry?.fault === point) resolve(entry as unknown as FaultReport)
    })
    void exited.then(() => reject(new Error(`the gateway exited without reaching ${point}`)))
  })
  report.catch(() => undefined)
  const port = await new Promise<number>((resolve, reject) => {
    lines.on('line', (line) => {
      const entry = parseLine(line)
      if (entry?.msg === 'gateway started' && typeof entry.port === 'number') resolve(entry.port)
    })
    void exited.then(() => reject(new Error(`gateway exited before it started: ${stderr}`)))
  })
  // Its answers are held to the OpenAPI document (./checked-origins.ts) until it dies.
  void exited.then(checkAnswersFrom(`http://127.0.0.1:${port}`))
  return { base: `http://127.0.0.1:${port}`, exited, report }
}

function parseLine(line: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(line) as Record<string, unknown>
  } catch {
    return undefined
  }
}
