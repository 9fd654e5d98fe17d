import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { HostMonitor, type HostSource, readThermal, systemHost } from '../../../lib/gateway/host.ts'

function source(times: { idle: number; total: number }[], milli?: number): HostSource {
  let i = 0
  return {
    freeMemory: () => 300,
    totalMemory: () => 1000,
    uptimeSeconds: () => 1234.9,
    cpuTimes: () => times[Math.min(i++, times.length - 1)],
    cpuTempMilli: () => milli,
    platform: () => 'linux-arm64',
  }
}

t.test('figures: memory in bytes, whole-second uptime, °C, utilisation from counter deltas', async (t) => {
  const monitor = new HostMonitor(
    source(
      [
        { idle: 0, total: 0 },
        { idle: 75, total: 100 },
        { idle: 75, total: 100 },
        { idle: 85, total: 200 },
      ],
      48_700,
    ),
  )
  t.same(monitor.figures(), { freeMemory: 300, totalMemory: 1000, usedMemory: 700, uptime: 1234, cpuTemp: 49, cpuUtilization: 25, platform: 'linux-arm64' })
  t.equal(monitor.figures().cpuUtilization, 25, 'no counter change: the last figure is kept')
  t.equal(monitor.figures().cpuUtilization, 90, '(100 - 10) / 100 busy')
})

t.test('no thermal sensor: cpuTemp 0', async (t) => {
  const monitor = new HostMonitor(source([{ idle: 0, total: 0 }]))
  t.equal(monitor.figures().cpuTemp, 0)
})

t.test('readThermal prefers the CPU zone and ignores unreadable ones', async (t) => {
  const root = t.testdir()
  const zone = (name: string, type: string, temp: string) => {
    mkdirSync(path.join(root, name))
    writeFileSync(path.join(root, name, 'type'), `${type}\n`)
    writeFileSync(path.join(root, name, 'temp'), `${temp}\n`)
  }
  zone('thermal_zone0', 'acpitz', '30000')
  zone('thermal_zone1', 'cpu-thermal', '52500')
  zone('thermal_zone2', 'gpu', 'garbage')
  t.equal(readThermal(root), 52500)
  t.equal(readThermal(path.join(root, 'missing')), undefined)
  const plain = t.testdir({ thermal_zone0: { temp: '41000' } })
  t.equal(readThermal(plain), 41000, 'first readable zone when none is named for the CPU')
})

t.test('the system source gives real figures', async (t) => {
  const figures = new HostMonitor(systemHost).figures()
  t.ok(figures.totalMemory > figures.freeMemory && figures.freeMemory > 0)
  t.ok(figures.uptime > 0)
  t.ok(figures.cpuTemp >= 0)
})
