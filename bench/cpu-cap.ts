// A CPU cap that models a slower machine: a cgroup whose CPU bandwidth is a fraction of one
// CPU (cgroup v2 cpu.max, or v1 cpu.cfs_quota_us where the cpu controller is on v1), a
// process started inside it from its first instruction, and the fraction chosen from a
// single-thread benchmark both machines ran (docs/performance.md, "Start-up under a CPU cap").
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'

/**
 * Raspberry Pi 4 (Cortex-A72, 1.5 GHz), one thread of `sysbench cpu --threads=1 --time=60
 * run` (sysbench 1.0.20, primes up to 10,000): 1477.83 events/s, as published in "Raspberry
 * Pi CPU Benchmarks" (leoncode.co.uk/articles/raspberry-pi-benchmarks).
 */
export const raspberryPi4Sysbench = 1477.83

/** The CPU controller this kernel offers: where to make a cgroup and how to cap it. */
export type CpuController = { version: 2; mount: string } | { version: 1; mount: string }

/**
 * Finds the cpu controller in /proc/self/mountinfo: a cgroup2 mount whose
 * cgroup.controllers lists cpu (read through `controllers`), else a v1 cgroup mount with
 * the cpu option.
 */
export function findCpuController(mountinfo: string, controllers: (mount: string) => string | undefined): CpuController | undefined {
  const mounts = mountinfo
    .split('\n')
    .filter((line) => line.includes(' - '))
    .map((line) => {
      const [before, after] = line.split(' - ')
      const fields = before.split(' ')
      const [fstype, , superOptions = ''] = after.split(' ')
      return { mount: fields[4], fstype, options: superOptions.split(',') }
    })
  for (const { mount, fstype } of mounts) {
    if (fstype === 'cgroup2' && (controllers(mount) ?? '').split(/\s+/).includes('cpu')) return { version: 2, mount }
  }
  for (const { mount, fstype, options } of mounts) {
    if (fstype === 'cgroup' && options.includes('cpu')) return { version: 1, mount }
  }
  return undefined
}

/** A share of one CPU as a CFS quota over a short period (10 ms: the cap is felt evenly, not in 100 ms bursts). */
export function quotaFor(fraction: number, periodUs = 10_000): { quotaUs: number; periodUs: number } {
  if (!(fraction > 0 && fraction <= 64)) throw new RangeError(`a CPU cap must be above 0 (got ${fraction})`)
  // The kernel refuses quotas under 1 ms.
  return { quotaUs: Math.max(1000, Math.round(fraction * periodUs)), periodUs }
}

/** events/s from the text `sysbench cpu run` prints. */
export function parseSysbenchEventsPerSecond(output: string): number {
  const match = /events per second:\s*([\d.]+)/.exec(output)
  if (!match) throw new Error('no "events per second" in sysbench output')
  return Number(match[1])
}

/** This machine's share of a Pi 4: the Pi's score over this machine's, never above one CPU. */
export function capFromScores(piScore: number, hereScore: number): number {
  if (!(piScore > 0 && hereScore > 0)) throw new RangeError('benchmark scores must be positive')
  return Math.min(1, piScore / hereScore)
}

/** A cgroup of its own with a CPU cap; start() runs a program inside it from its first instruction. */
export class CappedGroup {
  readonly dir: string
  readonly #controller: CpuController

  private constructor(controller: CpuController, dir: string) {
    this.#controller = controller
    this.dir = dir
  }

  /** Makes the cgroup; fails with the reason and what to do when this machine cannot. */
  static create(fraction: number, name = `gateway-bench-${process.pid}`): CappedGroup {
    const controller = findCpuController(readFileSync('/proc/self/mountinfo', 'utf8'), (mount) => {
      try {
        return readFileSync(path.join(mount, 'cgroup.controllers'), 'utf8')
      } catch {
        return undefined
      }
    })
    if (!controller)
      throw new Error('no cgroup cpu controller is mounted (cgroup v2 with cpu in cgroup.controllers, or v1 with the cpu option): cannot cap the CPU here')
    const dir = path.join(controller.mount, name)
    const { quotaUs, periodUs } = quotaFor(fraction)
    try {
      if (controller.version === 2) {
        // The parent must hand the cpu controller down (a no-op when it already does).
        const subtree = path.join(controller.mount, 'cgroup.subtree_control')
        if (!readFileSync(subtree, 'utf8').split(/\s+/).includes('cpu')) writeFileSync(subtree, '+cpu')
        mkdirSync(dir)
        writeFileSync(path.join(dir, 'cpu.max'), `${quotaUs} ${periodUs}`)
      } else {
        mkdirSync(dir)
        writeFileSync(path.join(dir, 'cpu.cfs_period_us'), String(periodUs))
        writeFileSync(path.join(dir, 'cpu.cfs_quota_us'), String(quotaUs))
      }
    } catch (error) {
      if (existsSync(dir)) rmdirSync(dir)
      throw new Error(
        `cannot make a CPU-capped cgroup at ${dir} (${(error as Error).message}): run as root on a machine whose cgroup cpu controller is writable`,
        { cause: error },
      )
    }
    return new CappedGroup(controller, dir)
  }

  /** Starts command inside the cgroup: a shell joins it, then execs the command (same pid). */
  start(command: string, args: string[], options: SpawnOptions = {}): ChildProcess {
    const procs = path.join(this.dir, 'cgroup.procs')
    return spawn('/bin/sh', ['-c', 'echo $$ > "$0" && exec "$@"', procs, command, ...args], options)
  }

  /**
   * Removes the cgroup once every process in it has ended (waiting up to 5 s: a gateway's
   * short-lived children may end just after it). One still there after that is something the
   * gateway left behind: named in the error, as a finding of the bench.
   */
  async remove(): Promise<void> {
    const procs = path.join(this.dir, 'cgroup.procs')
    const left = () => readFileSync(procs, 'utf8').split('\n').filter(Boolean)
    for (let waited = 0; left().length > 0 && waited < 5_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50))
    const remaining = left().map((pid) => `${pid} (${commandLineOf(pid)})`)
    if (remaining.length > 0) throw new Error(`processes the gateway left behind in ${this.dir}: ${remaining.join(', ')}`)
    rmdirSync(this.dir)
  }

  get version(): 1 | 2 {
    return this.#controller.version
  }
}

function commandLineOf(pid: string): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ')
  } catch {
    return 'gone'
  }
}
