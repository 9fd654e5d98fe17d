// Start-up to first answer under a CPU cap that models a Raspberry Pi 4 (npm run
// bench:startup, or BENCH_ONLY=startup npm run bench): the gateway, started as `npm start`
// starts it (simulated radio), inside a cgroup capped at the Pi's share of one of this
// machine's CPUs (bench/cpu-cap.ts); the time from spawn to the first 200 from GET /api/v2.
//
//   first start: an empty data dir and an empty compile cache (the first start after install)
//   restart:     the same data dir and the compile cache the first start left (every later
//                start; the median of BENCH_STARTUP_RESTARTS, default 5)
//
// The cap: the Pi 4's published single-thread sysbench figure over this machine's, measured
// now with the same command (BENCH_CPU_CAP=0.3 sets it instead). Target < 1 s for both.
// Needs sysbench (or BENCH_CPU_CAP), root and a writable cgroup cpu controller; without them
// the part is skipped with one line saying what is missing. Results:
// bench/results/startup.json.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { CappedGroup, capFromScores, parseSysbenchEventsPerSecond, raspberryPi4Sysbench } from './cpu-cap.ts'
import { freePort } from './free-port.ts'
import { gatewayEntry } from './memory-gateway.ts'
import { startFlags } from './start-flags.ts'

const root = path.resolve(import.meta.dirname, '..')
export const startupTargetMs = 1000

export type Cap = { fraction: number; source: string; sysbenchHere?: number }

/** What chooses the cap when BENCH_CPU_CAP does not: one thread of sysbench's CPU test here. */
export function runSysbench(): string {
  return execFileSync('sysbench', ['cpu', '--threads=1', '--time=10', 'run'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
}

/**
 * The cap, and where it came from; or, when this machine has no way to choose it (sysbench
 * is not installed and BENCH_CPU_CAP is not set), the one line that says why the part is
 * skipped and what to do (a fresh machine has no sysbench: `npm run bench` goes on).
 */
export function chooseCap(env: NodeJS.ProcessEnv, sysbench: () => string = runSysbench): { cap: Cap } | { skipped: string } {
  if (env.BENCH_CPU_CAP) return { cap: { fraction: Number(env.BENCH_CPU_CAP), source: 'BENCH_CPU_CAP' } }
  let output: string
  try {
    output = sysbench()
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'sysbench is not installed' : `sysbench failed (${firstLine((error as Error).message)})`
    return { skipped: `start-up under a CPU cap skipped: ${reason}; apt-get install sysbench, or set BENCH_CPU_CAP (e.g. 0.42)` }
  }
  const here = parseSysbenchEventsPerSecond(output)
  return {
    cap: {
      fraction: capFromScores(raspberryPi4Sysbench, here),
      source: `sysbench cpu, 1 thread: Raspberry Pi 4 ${raspberryPi4Sysbench} events/s (published) / here ${here}`,
      sysbenchHere: here,
    },
  }
}

const firstLine = (text: string) => text.split('\n')[0]!.trim()

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/api/v2', agent: false }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode === 200))
    })
    req.on('error', () => resolve(false))
  })
}

/** One start inside the cgroup: ms from spawn to the first answer; the gateway is stopped after. */
async function timedStart(group: CappedGroup, dataDir: string, compileCache: string): Promise<number> {
  const port = await freePort()
  const configFile = path.join(dataDir, 'gateway.config.json')
  writeFileSync(configFile, JSON.stringify({ host: '127.0.0.1', port, dataDir, mdns: { enabled: false }, tls: { port: 0 }, radio: { kind: 'simulated' } }))
  const began = performance.now()
  const child = group.start(process.execPath, [...startFlags(), gatewayEntry, 'start', '--config', configFile], {
    env: { ...process.env, NODE_COMPILE_CACHE: compileCache, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  try {
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the gateway exited (${child.exitCode ?? child.signalCode}) before answering`)
      if (await answers(port)) return performance.now() - began
      if (performance.now() - began > 60_000) throw new Error('no answer within 60 s')
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
  } finally {
    // A clean stop: the compile cache is written as the gateway exits.
    child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
    await exited
    clearTimeout(timer)
  }
}

function skip(line: string): 'skipped' {
  process.stderr.write(`${line}\n`)
  return 'skipped'
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

/**
 * Runs the part and records it: true when both targets are met. 'skipped' (after one line on
 * stderr, no trace) when this machine cannot cap a process's CPU: no sysbench to choose the
 * cap, or no writable cgroup cpu controller (not root).
 */
export async function startupBench(): Promise<boolean | 'skipped'> {
  const choice = chooseCap(process.env)
  if ('skipped' in choice) return skip(choice.skipped)
  const { cap } = choice
  const restarts = Number(process.env.BENCH_STARTUP_RESTARTS ?? 5)
  let group: CappedGroup
  try {
    group = CappedGroup.create(cap.fraction)
  } catch (error) {
    return skip(`start-up under a CPU cap skipped: ${firstLine((error as Error).message)}`)
  }
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'gateway-startup-'))
  try {
    const dataDir = path.join(scratch, 'data')
    const compileCache = path.join(scratch, 'compile-cache')
    mkdirSync(dataDir)
    process.stderr.write(`start-up under a ${(cap.fraction * 100).toFixed(0)} % CPU cap (cgroup v${group.version}): first start …`)
    const firstMs = await timedStart(group, dataDir, compileCache)
    process.stderr.write(` ${Math.round(firstMs)} ms; restarts …`)
    const restartMs: number[] = []
    for (let i = 0; i < restarts; i++) restartMs.push(await timedStart(group, dataDir, compileCache))
    process.stderr.write(` ${restartMs.map(Math.round).join(', ')} ms\n`)
    const results = { firstStartMs: Math.round(firstMs), restartMedianMs: Math.round(median(restartMs)), restartsMs: restartMs.map(Math.round) }
    const pass = { firstStart: results.firstStartMs < startupTargetMs, restart: results.restartMedianMs < startupTargetMs }
    const machine = {
      name: process.env.BENCH_MACHINE ?? os.hostname(),
      nproc: os.cpus().length,
      cpu: os.cpus()[0]?.model ?? 'unknown',
      node: process.version,
      loadAverage1m: Math.round(os.loadavg()[0] * 100) / 100,
    }
    const report = {
      date: new Date().toISOString(),
      machine,
      cap: { ...cap, cgroup: `v${group.version}` },
      flags: startFlags(),
      targetMs: startupTargetMs,
      results,
      pass,
    }
    mkdirSync(path.join(root, 'bench/results'), { recursive: true })
    writeFileSync(path.join(root, 'bench/results/startup.json'), `${JSON.stringify(report, null, 2)}\n`)
    console.log(`machine: ${machine.name}, ${machine.nproc} × ${machine.cpu}, Node ${machine.node}, load average ${machine.loadAverage1m}`)
    console.log(`CPU cap ${(cap.fraction * 100).toFixed(1)} % of one CPU (${cap.source})`)
    console.log(
      `start-up to first answer, first start (empty data dir, empty compile cache): ${results.firstStartMs} ms  (target < ${startupTargetMs} ms) ${pass.firstStart ? 'met' : 'MISSED'}`,
    )
    console.log(
      `start-up to first answer, restart (median of ${restarts}): ${results.restartMedianMs} ms  (target < ${startupTargetMs} ms) ${pass.restart ? 'met' : 'MISSED'}`,
    )
    console.log('written to bench/results/startup.json')
    return pass.firstStart && pass.restart
  } finally {
    await group.remove()
    rmSync(scratch, { recursive: true, force: true })
  }
}
