// Real figures from the host for GET /api/v2/gateway: memory in bytes, uptime in seconds,
// CPU temperature in °C (from /sys/class/thermal where the host exposes it, else 0) and CPU
// utilisation in percent, sampled between two readings of the kernel's CPU time counters.
import { readdirSync, readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

export interface CpuTimes {
  idle: number
  total: number
}

/** Where the figures come from; tests substitute their own. */
export interface HostSource {
  freeMemory(): number
  totalMemory(): number
  uptimeSeconds(): number
  cpuTimes(): CpuTimes
  /** Millidegrees Celsius, or undefined where the host exposes no sensor. */
  cpuTempMilli(): number | undefined
  platform(): string
}

export interface HostFigures {
  freeMemory: number
  totalMemory: number
  usedMemory: number
  uptime: number
  cpuTemp: number
  cpuUtilization: number
  platform: string
}

export function cpuTimesNow(): CpuTimes {
  let idle = 0
  let total = 0
  for (const cpu of os.cpus()) {
    const t = cpu.times
    idle += t.idle
    total += t.user + t.nice + t.sys + t.idle + t.irq
  }
  return { idle, total }
}

/** Zone types that measure the CPU/SoC, in order of preference; else the first readable zone. */
const preferredZones = [/cpu/i, /soc/i, /x86_pkg_temp/i, /coretemp/i]

export function readThermal(root = '/sys/class/thermal'): number | undefined {
  let zones: string[]
  try {
    zones = readdirSync(root)
      .filter((name) => name.startsWith('thermal_zone'))
      .sort()
  } catch {
    return undefined
  }
  const readings: { type: string; milli: number }[] = []
  for (const zone of zones) {
    try {
      const milli = Number(readFileSync(path.join(root, zone, 'temp'), 'utf8').trim())
      let type = ''
      try {
        type = readFileSync(path.join(root, zone, 'type'), 'utf8').trim()
      } catch {}
      if (Number.isFinite(milli)) readings.push({ type, milli })
    } catch {}
  }
  for (const pattern of preferredZones) {
    const match = readings.find((r) => pattern.test(r.type))
    if (match) return match.milli
  }
  return readings[0]?.milli
}

export const systemHost: HostSource = {
  freeMemory: () => os.freemem(),
  totalMemory: () => os.totalmem(),
  uptimeSeconds: () => os.uptime(),
  cpuTimes: cpuTimesNow,
  cpuTempMilli: () => readThermal(),
  platform: () => `${os.platform()}-${os.arch()}`,
}

export class HostMonitor {
  readonly #source: HostSource
  #previous: CpuTimes
  #utilization = 0

  constructor(source: HostSource = systemHost) {
    this.#source = source
    this.#previous = source.cpuTimes()
  }

  /**
   * Utilisation over the time since the previous call (or since start). Calls closer than
   * the kernel's counter resolution see no change and keep the last figure.
   */
  #sampleUtilization(): number {
    const now = this.#source.cpuTimes()
    const total = now.total - this.#previous.total
    const idle = now.idle - this.#previous.idle
    if (total > 0) {
      this.#utilization = Math.min(100, Math.max(0, Math.round((100 * (total - idle)) / total)))
      this.#previous = now
    }
    return this.#utilization
  }

  figures(): HostFigures {
    const free = this.#source.freeMemory()
    const total = this.#source.totalMemory()
    const milli = this.#source.cpuTempMilli()
    return {
      freeMemory: free,
      totalMemory: total,
      usedMemory: Math.max(0, total - free),
      uptime: Math.floor(this.#source.uptimeSeconds()),
      cpuTemp: milli === undefined ? 0 : Math.round(milli / 1000),
      cpuUtilization: this.#sampleUtilization(),
      platform: this.#source.platform(),
    }
  }
}
