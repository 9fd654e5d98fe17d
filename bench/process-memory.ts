// A process's memory as the kernel counts it (/proc/<pid>/status): resident now (VmRSS) and
// the most it was resident since it started (VmHWM), and the processes it started, so a
// benchmark can follow a gateway and the radio processes it forks one after another.
import { readdirSync, readFileSync } from 'node:fs'

export interface Resident {
  /** VmRSS, bytes. */
  rss: number
  /** VmHWM (the high-water mark of VmRSS), bytes. */
  peak: number
}

/** VmRSS and VmHWM from the text of /proc/<pid>/status (the kernel writes them in kB). */
export function parseStatusMemory(status: string): Resident {
  const kib = (field: string) => kibibytesField(status, field, '/proc/<pid>/status (a kernel thread, or not Linux)')
  return { rss: kib('VmRSS'), peak: kib('VmHWM') }
}

/** A "Field:  N kB" line of a /proc file, in bytes; `file` names it in the error when absent. */
function kibibytesField(text: string, field: string, file: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB$`, 'm').exec(text)
  if (!match) throw new Error(`no ${field} line in ${file}`)
  return Number(match[1]) * 1024
}

/** The memory of a process that must be running (bytes); throws when it is gone. */
export function residentBytes(pid: number): Resident {
  return parseStatusMemory(readFileSync(`/proc/${pid}/status`, 'utf8'))
}

/** The process's memory now, or undefined once it is gone. */
export function residentOf(pid: number): Resident | undefined {
  try {
    return parseStatusMemory(readFileSync(`/proc/${pid}/status`, 'utf8'))
  } catch {
    return undefined
  }
}

/** Resident memory split by who maps it, from /proc/<pid>/smaps_rollup (bytes). */
export interface Sharing {
  /** Private_Clean + Private_Dirty: pages only this process maps. */
  private: number
  /** Shared_Clean + Shared_Dirty: pages other processes map too (the node binary's code, libc). */
  shared: number
}

export function parseRollupSharing(rollup: string): Sharing {
  const kib = (field: string) => kibibytesField(rollup, field, '/proc/<pid>/smaps_rollup')
  return { private: kib('Private_Clean') + kib('Private_Dirty'), shared: kib('Shared_Clean') + kib('Shared_Dirty') }
}

/** The process's sharing now, or undefined once it is gone (or on a kernel without smaps_rollup). */
export function sharingOf(pid: number): Sharing | undefined {
  try {
    return parseRollupSharing(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))
  } catch {
    return undefined
  }
}

/**
 * What processes take together with the pages they share counted once: each one's private
 * pages plus the largest shared set (a gateway and its radio process map the same node
 * binary; the sum of their RSS counts its pages twice). Pss would divide shared pages among
 * every process on the machine that maps them, other work included; this does not.
 */
export function countedOnce(processes: Sharing[]): number {
  return processes.reduce((sum, p) => sum + p.private, 0) + Math.max(0, ...processes.map((p) => p.shared))
}

/** Children of a process (every thread's children file), or [] once it is gone. */
export function childPids(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
      readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8')
        .split(' ')
        .filter((word) => word.trim() !== '')
        .map(Number),
    )
  } catch {
    return []
  }
}

export const megabytes = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10

/**
 * The highest VmHWM seen of a process and of each process it starts, read every intervalMs
 * until stop(). A child's high-water mark is kept from its last reading before it ends, so a
 * radio process started again after a failure is one more entry, not a lost figure.
 */
export class PeakWatch {
  readonly #pid: number
  readonly #peaks = new Map<number, number>()
  readonly #timer: NodeJS.Timeout
  /** Reads the child pids of a process; replaceable for tests. */
  readonly #children: (pid: number) => number[]
  readonly #read: (pid: number) => Resident | undefined

  constructor(pid: number, intervalMs = 100, sources: { children?: (pid: number) => number[]; read?: (pid: number) => Resident | undefined } = {}) {
    this.#pid = pid
    this.#children = sources.children ?? childPids
    this.#read = sources.read ?? residentOf
    this.sample()
    this.#timer = setInterval(() => this.sample(), intervalMs)
  }

  /** One reading of the process and its children (also called on the timer). */
  sample(): void {
    for (const pid of [this.#pid, ...this.#children(this.#pid)]) {
      const resident = this.#read(pid)
      if (resident) this.#peaks.set(pid, Math.max(resident.peak, this.#peaks.get(pid) ?? 0))
    }
  }

  stop(): { peak: number; children: { pid: number; peak: number }[] } {
    this.sample()
    clearInterval(this.#timer)
    const children = [...this.#peaks].filter(([pid]) => pid !== this.#pid).map(([pid, peak]) => ({ pid, peak }))
    return { peak: this.#peaks.get(this.#pid) ?? 0, children }
  }
}

export interface Sample {
  /** ms */
  at: number
  bytes: number
}

/**
 * Settled: the samples cover at least windowMs, and within the last windowMs the figure moved
 * by no more than toleranceBytes (start-up's allocations and first collections are over).
 */
export function isSettled(samples: Sample[], windowMs: number, toleranceBytes: number): boolean {
  const last = samples.at(-1)
  if (!last || last.at - samples[0].at < windowMs) return false
  // The window starts at the last reading taken at or before its start: readings far apart (a
  // busy machine delays the timer) must not leave a single reading to stand for the window.
  const start = samples.findLastIndex((sample) => sample.at <= last.at - windowMs)
  const recent = samples.slice(start).map((sample) => sample.bytes)
  return Math.max(...recent) - Math.min(...recent) <= toleranceBytes
}

/**
 * Reads a figure (e.g. the RSS of a gateway and its radio process) every intervalMs until it
 * has settled (isSettled) or maxMs passed, and returns the last reading and whether it settled.
 */
export async function settledReading(
  read: () => number,
  options: { windowMs?: number; toleranceBytes?: number; maxMs?: number; intervalMs?: number } = {},
): Promise<{ bytes: number; settled: boolean; afterMs: number }> {
  const { windowMs = 3000, toleranceBytes = 1024 * 1024, maxMs = 30_000, intervalMs = 250 } = options
  const started = Date.now()
  const samples: Sample[] = []
  for (;;) {
    samples.push({ at: Date.now(), bytes: read() })
    const settled = isSettled(samples, windowMs, toleranceBytes)
    if (settled || Date.now() - started >= maxMs) return { bytes: samples.at(-1)!.bytes, settled, afterMs: Date.now() - started }
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}
