// The memory benchmark (npm run bench:memory, or BENCH_ONLY=memory npm run bench): what the
// gateway costs a Raspberry Pi that also runs other things.
//
//   1. idle RSS of the gateway process: simulated radio, empty data dir, after start-up has
//      settled (target ≤ 70 MB)
//   2. idle RSS of the gateway and its radio process with herdsman's Controller up on the
//      tests' fake coordinator (loaded into the radio process only, by
//      bench/fake-coordinator-preload.ts, compiled to JavaScript as the radio process is)
//      (target ≤ 150 MB together)
//   3. peak RSS (VmHWM) while herdsman's ember adapter starts on a silent pseudo-terminal
//      stick until it gives up (or BENCH_MEMORY_EMBER_SECONDS, default 60), gateway + radio
//      process, beside zigbee2mqtt 2.14.1 (the same herdsman in one process) on its own
//      silent stick, same Node (target: no more than zigbee2mqtt)
//
// Every process is started as `npm start` starts it (bench/memory-gateway.ts), one at a time,
// and ended before the next. Results: bench/results/memory.json.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { spawn } from 'node:child_process'
import os from 'node:os'
import path from 'node:path'
import { compileFakeCoordinator, fakeCoordinatorSources } from '../tests/helpers/compiled-fake-coordinator.ts'
import { PseudoTerminal } from '../tests/helpers/pty.ts'
import { FakeRemote } from '../tests/helpers/zigbee-fake-remote.ts'
import { freePort } from './free-port.ts'
import { MemoryGateway } from './memory-gateway.ts'
import { countedOnce, megabytes, PeakWatch, residentOf, settledReading, sharingOf } from './process-memory.ts'
import { startFlags } from './start-flags.ts'
import { memoryRow, memoryTargets } from './memory-table.ts'
import { installZigbee2mqtt, zigbee2mqttConfiguration, zigbee2mqttEnv, zigbee2mqttVersion } from './zigbee2mqtt.ts'

const root = path.resolve(import.meta.dirname, '..')
/**
 * The fake coordinator's preload as JavaScript, in node_modules/.cache (its lib/ a link to
 * build/lib, which the gateway's first start builds). A .ts preload would load Node's type
 * stripping into both processes and keep the radio process out of lite mode
 * (lib/radio/zigbee-process-flags.ts): not the radio process a box runs.
 */
const compiledPreload = () =>
  compileFakeCoordinator(path.join(root, 'node_modules/.cache/bench-fake-coordinator'), root, [fakeCoordinatorSources.gatewayPreload])[0]
const emberSeconds = () => Number(process.env.BENCH_MEMORY_EMBER_SECONDS ?? 60)

const rssOf = (pid: number | undefined) => (pid === undefined ? 0 : (residentOf(pid)?.rss ?? 0))
/** Whether a radio process was given --lite-mode (lib/radio/zigbee-process-flags.ts); null once it is gone. */
function liteModeOf(pid: number | undefined): boolean | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('--lite-mode')
  } catch {
    return null
  }
}

async function idleGateway() {
  process.stderr.write('memory 1/3: idle gateway, simulated radio …')
  const gateway = await MemoryGateway.start()
  try {
    const reading = await settledReading(() => rssOf(gateway.pid))
    process.stderr.write(` ${megabytes(reading.bytes)} MB\n`)
    return { gatewayMB: megabytes(reading.bytes), settled: reading.settled }
  } finally {
    await gateway.stop()
  }
}

/**
 * A gateway with its radio process up, started and stopped once before anything is measured:
 * both fill Node's compile cache as any start after the first finds it (a cold cache costs
 * the first start's type stripping and compiling, about 30 MB more in each process).
 */
async function warmUp(preload: string): Promise<void> {
  process.stderr.write('memory: a first start to fill the compile cache …')
  await idleWithRadio(preload, false)
  process.stderr.write(' done\n')
}

async function idleWithRadio(preload: string, report = true) {
  if (report) process.stderr.write('memory 2/3: idle gateway + radio process, herdsman up on the fake coordinator …')
  const { remote, close } = await FakeRemote.listen()
  let gateway: MemoryGateway | undefined
  try {
    gateway = await MemoryGateway.start({
      radio: { kind: 'zigbee', adapter: 'zstack', serialPort: '/dev/ttyUSB0' },
      nodeFlags: ['--import', preload],
      env: { ZIGBEE_FAKE_CONTROL: remote.socketPath },
    })
    const started = gateway
    await started.until(() => started.radioUps > 0, 'radio up', 120_000)
    const radioPid = started.radioPid()
    if (radioPid === undefined) throw new Error('the radio came up but its process is not running')
    // Both read together, so the parts add up to the settled sum.
    let parts = { gateway: 0, radio: 0 }
    const reading = await settledReading(
      () => {
        parts = { gateway: rssOf(started.pid), radio: rssOf(radioPid) }
        return parts.gateway + parts.radio
      },
      report ? {} : { maxMs: 0 },
    )
    const gatewayMB = megabytes(parts.gateway)
    const radioMB = megabytes(parts.radio)
    // What the two take from the machine's memory, the pages they share counted once.
    const sharing = [sharingOf(started.pid), sharingOf(radioPid)].filter((one) => one !== undefined)
    const countedOnceMB = sharing.length === 2 ? megabytes(countedOnce(sharing)) : null
    if (report) process.stderr.write(` ${gatewayMB} + ${radioMB} MB\n`)
    return {
      gatewayMB,
      radioMB,
      togetherMB: megabytes(reading.bytes),
      sharedCountedOnceMB: countedOnceMB,
      settled: reading.settled,
      fakeCoordinatorChildren: remote.children.length,
      radioLiteMode: remote.current?.webAssembly === false,
    }
  } finally {
    await gateway?.stop()
    await close()
  }
}

/** The gateway on an ember stick that never answers: peaks until its first radio process gives up. */
async function gatewayOnSilentStick(seconds: number) {
  const stick = await PseudoTerminal.open()
  let gateway: MemoryGateway | undefined
  let watch: PeakWatch | undefined
  try {
    const began = Date.now()
    gateway = await MemoryGateway.start({ radio: { kind: 'zigbee', adapter: 'ember', serialPort: stick.device } })
    const started = gateway
    watch = new PeakWatch(started.pid)
    const firstRadio = () => started.radioPids[0]
    await started.until(() => firstRadio() !== undefined, 'a radio process', 30_000)
    const radioLiteMode = liteModeOf(firstRadio())
    // Until the first radio process has ended (the adapter gave up) or the time is up.
    const deadline = began + seconds * 1000
    while (Date.now() < deadline && residentOf(firstRadio()) !== undefined) await new Promise((resolve) => setTimeout(resolve, 100))
    const peaks = watch.stop()
    watch = undefined
    const radios = peaks.children.filter((child) => started.radioPids.includes(child.pid))
    const radioPeak = Math.max(0, ...radios.map((child) => child.peak))
    return {
      gatewayPeakMB: megabytes(peaks.peak),
      radioPeakMB: megabytes(radioPeak),
      togetherMB: megabytes(peaks.peak + radioPeak),
      seconds: Math.round((Date.now() - began) / 100) / 10,
      radioProcesses: radios.length,
      radioLiteMode,
      bytesWrittenToStick: stick.received.length,
    }
  } finally {
    watch?.stop()
    await gateway?.stop()
    await stick.close()
  }
}

/** zigbee2mqtt on its own silent ember stick, until it gives up (it exits) or the time is up. */
async function zigbee2mqttOnSilentStick(seconds: number) {
  const entry = installZigbee2mqtt(root)
  const stick = await PseudoTerminal.open()
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'zigbee2mqtt-memory-'))
  try {
    writeFileSync(path.join(dataDir, 'configuration.yaml'), zigbee2mqttConfiguration({ serialPort: stick.device, mqttPort: await freePort() }))
    const began = Date.now()
    // Its working directory outside any git checkout: zigbee2mqtt's index.js compares `git
    // rev-parse HEAD` there with the commit it was built from and rebuilds when they differ.
    const child = spawn(process.execPath, [entry], {
      cwd: dataDir,
      env: { ...process.env, ...zigbee2mqttEnv(dataDir) },
      stdio: ['ignore', 'ignore', 'inherit'],
    })
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    const watch = new PeakWatch(child.pid!)
    let timer: NodeJS.Timeout | undefined
    const timeUp = new Promise<'time'>((resolve) => (timer = setTimeout(() => resolve('time'), seconds * 1000)))
    const outcome = await Promise.race([exited, timeUp])
    clearTimeout(timer)
    const peaks = watch.stop()
    if (outcome === 'time') {
      child.kill('SIGKILL')
      await exited
    }
    return {
      version: zigbee2mqttVersion,
      peakMB: megabytes(peaks.peak),
      seconds: Math.round((Date.now() - began) / 100) / 10,
      gaveUp: outcome !== 'time',
      bytesWrittenToStick: stick.received.length,
    }
  } finally {
    await stick.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

async function silentEmber() {
  const seconds = emberSeconds()
  process.stderr.write(`memory 3/3: ember adapter on a silent stick (up to ${seconds} s each): gateway …`)
  const gateway = await gatewayOnSilentStick(seconds)
  process.stderr.write(` ${gateway.gatewayPeakMB} + ${gateway.radioPeakMB} MB; zigbee2mqtt ${zigbee2mqttVersion} …`)
  const zigbee2mqtt = await zigbee2mqttOnSilentStick(seconds)
  process.stderr.write(` ${zigbee2mqtt.peakMB} MB\n`)
  return { gateway, zigbee2mqtt }
}

function machine() {
  return {
    name: process.env.BENCH_MACHINE ?? os.hostname(),
    nproc: os.cpus().length,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    memoryMB: Math.round(os.totalmem() / 1048576),
    node: process.version,
    platform: `${os.type()} ${os.release()}`,
    loadAverage1m: Math.round(os.loadavg()[0] * 100) / 100,
  }
}

export async function memoryBench(): Promise<boolean> {
  const preload = compiledPreload()
  await warmUp(preload)
  const idle = await idleGateway()
  const withRadio = await idleWithRadio(preload)
  const ember = await silentEmber()
  const pass = {
    idleGateway: idle.gatewayMB <= memoryTargets.idleGatewayMB,
    idleWithRadio: withRadio.togetherMB <= memoryTargets.idleWithRadioMB,
    silentEmber: ember.gateway.togetherMB <= ember.zigbee2mqtt.peakMB,
  }
  const report = { date: new Date().toISOString(), machine: machine(), flags: startFlags(), targets: memoryTargets, results: { idle, withRadio, ember }, pass }
  mkdirSync(path.join(root, 'bench/results'), { recursive: true })
  writeFileSync(path.join(root, 'bench/results/memory.json'), `${JSON.stringify(report, null, 2)}\n`)

  const m = report.machine
  console.log(`machine: ${m.name}, ${m.nproc} × ${m.cpu}, ${m.memoryMB} MB, Node ${m.node}, load average ${m.loadAverage1m}`)
  console.log(`${'figure'.padEnd(66)} ${'measured'.padStart(9)}  ${'target'.padEnd(22)} ${'ratio'.padStart(5)}`)
  console.log(memoryRow('idle RSS, gateway, simulated radio, empty data dir', idle.gatewayMB, memoryTargets.idleGatewayMB))
  console.log(
    memoryRow(
      `idle RSS, gateway ${withRadio.gatewayMB} + radio process ${withRadio.radioMB} (fake coordinator)`,
      withRadio.togetherMB,
      memoryTargets.idleWithRadioMB,
    ),
  )
  console.log(
    `  (the two with the pages they share, such as Node's own code, counted once: ${withRadio.sharedCountedOnceMB} MB; radio process ${withRadio.radioLiteMode ? 'under' : 'NOT under'} --lite-mode)`,
  )
  const g = ember.gateway
  const z = ember.zigbee2mqtt
  console.log(
    memoryRow(`peak RSS, ember on a silent stick: gateway ${g.gatewayPeakMB} + radio ${g.radioPeakMB}`, g.togetherMB, z.peakMB, `≤ zigbee2mqtt ${z.peakMB} MB`),
  )
  console.log(
    `  (gateway: ${g.seconds} s, ${g.radioProcesses} radio process(es)${g.radioLiteMode ? ' under --lite-mode' : ''}; zigbee2mqtt ${z.version}: ${z.seconds} s, ${z.gaveUp ? 'gave up' : 'still trying when stopped'})`,
  )
  console.log('written to bench/results/memory.json')
  return Object.values(pass).every(Boolean)
}
