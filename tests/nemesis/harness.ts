// The nemesis (issue 40): one seeded schedule (tests/nemesis/schedule.ts) played against the
// real gateway process, with the invariants (tests/nemesis/invariants.ts, and the crash
// test's rules in tests/crash/verify.ts) checked after every step.
//
// What it drives: a gateway (tests/helpers/process.ts) under libfaketime whose wall clock
// the harness moves, with a stand-in `timedatectl` (tests/helpers/faketime.ts); order
// operations over v2, v1 and the simulator, one at a time, each acknowledged or not; SIGKILL
// and SIGTERM restarts, with the clock moved while down; backups through the control socket
// and restores (`gateway restore`) into a fresh data dir, after which the schedule goes on on
// the restored box; a full file system (a small tmpfs holding the data dir, filled up; only
// where mounting is allowed: root). A webhook receiver (tests/helpers/webhooks.ts) stays up
// throughout and checks that seq only grows, across restores too.
//
// One request at a time means the harness always knows what each acknowledged answer did;
// a kill lands between requests (the crash test, tests/crash, covers kills mid-request).
import { execFileSync } from 'node:child_process'
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statfsSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import tls from 'node:tls'
import { createHash } from 'node:crypto'
import { sendControl } from '../../runtime/control/control.ts'
import { tlsDir } from '../../runtime/host/tls/certificate-files.ts'
import { localNames } from '../../runtime/host/tls/local-names.ts'
import { makeSelfSigned } from '../../runtime/host/tls/self-signed.ts'
import { checkDeliveries, checkRecoveredState, type Delivery } from '../crash/verify.ts'
import { fakeSystemClock, type FakeSystemClock } from '../helpers/faketime.ts'
import { runCli, startGatewayProcess, type GatewayProcess } from '../helpers/process.ts'
import { until } from '../helpers/until.ts'
import { startReceiver, type Receiver } from '../helpers/webhooks.ts'
import {
  checkActiveTimes,
  checkHistoryTimes,
  checkStatistics,
  type ModelCleared,
  type ModelOrder,
  type Observation,
  offsetMsOf,
  parseLocal,
  type Stamp,
} from './invariants.ts'
import { describeSchedule, describeStep, generateSchedule, type ScheduleOptions, type Step } from './schedule.ts'

export interface NemesisOptions extends ScheduleOptions {
  seed: number
  /** Steps to run instead of the seed's schedule (a case written out by hand). */
  schedule?: Step[]
  /** Called with each line of the schedule's log as it runs. */
  log?: (line: string) => void
}

export interface NemesisReport {
  seed: number
  schedule: Step[]
  /** Steps run (all of them unless a problem stopped the schedule). */
  stepsRun: number
  problems: string[]
  /** What each step did, as run (for a failure's print-out). */
  log: string[]
  figures: {
    starts: number
    acknowledged: number
    backups: number
    restores: number
    /** Restores refused as documented (the clock before the backup's time). */
    restoresRefused: number
    /** Restores whose TLS identity was compared / not (the backup holds no TLS key). */
    tlsCompared: number
    tlsNotInBackup: number
    fullDisks: number
    deliveries: number
    /** Starts that took longer than 20 s (a loaded machine) and were tried again. */
    slowStarts: number
  }
  /** Why full-disk steps did nothing, if they did not run. */
  fullDiskSkipped: string | null
  durationMs: number
}

type Json = Record<string, any>

/** Names driven through the simulator (a tracker each) and through v2/v1 (none, or v1's stand-in). */
const simNames = Array.from({ length: 10 }, (_, i) => i + 1)
const plainNames = Array.from({ length: 16 }, (_, i) => i + 101)

class Problem extends Error {}

const pickFrom = <T>(list: readonly T[], pick: number): T | undefined => list[Math.floor(pick * list.length)]

export async function runSchedule(options: NemesisOptions): Promise<NemesisReport> {
  const started = Date.now()
  const schedule = options.schedule ?? generateSchedule(options.seed, options)
  const lines: string[] = []
  const log = (line: string) => {
    lines.push(line)
    options.log?.(line)
  }
  const problems: string[] = []
  const report: NemesisReport = {
    seed: options.seed,
    schedule,
    stepsRun: 0,
    problems,
    log: lines,
    figures: {
      starts: 0,
      acknowledged: 0,
      backups: 0,
      restores: 0,
      restoresRefused: 0,
      tlsCompared: 0,
      tlsNotInBackup: 0,
      fullDisks: 0,
      deliveries: 0,
      slowStarts: 0,
    },
    fullDiskSkipped: null,
    durationMs: 0,
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'nemesis-'))
  directories.add(dir)
  const disk = mountSmallFileSystem(path.join(dir, 'fs'))
  report.fullDiskSkipped = disk.skipped
  const root = disk.root
  const backupsDir = path.join(root, 'backups')
  mkdirSync(backupsDir)
  const configFile = path.join(dir, 'gateway.config.json')
  writeFileSync(
    configFile,
    JSON.stringify({
      host: '127.0.0.1',
      mdns: { enabled: false },
      radio: { kind: 'simulated' },
      webhooks: { allowLoopback: true, retrySchedule: [50, 200, 1000], timeoutMs: 2000 },
      clock: { syncCheckSeconds: 1, holdDeliveriesSeconds: 2 },
    }),
  )
  const clock = fakeSystemClock(dir, '+0', true)
  const world = { offsetSec: 0, synchronized: true }
  const receiver: Receiver = await startReceiver('/hook')
  const box = new Box(clock, configFile, world)

  // What the harness holds as acknowledged.
  const active = new Map<number, ModelOrder>()
  const cleared = new Map<string, ModelCleared>()
  const created = new Set<string>()
  const backups: {
    file: string
    takenAt: number
    spki: string | null
    tlsInBackup: boolean
    active: Map<number, ModelOrder>
    cleared: Map<string, ModelCleared>
    created: Set<string>
  }[] = []
  const knownProblems = new Set<string>()
  let dataDirs = 0
  const nextDataDir = () => path.join(root, `data-${dataDirs++}`)

  try {
    box.dataDir = nextDataDir()
    giveOwnCertificate(box.dataDir)
    await box.start()
    report.figures.starts++
    await sendControl(box.dataDir, 'button.press')
    const generated = await box.call('GET', '/api/v2/accesstoken/generate?name=nemesis')
    if (generated.status !== 201) throw new Problem(`token: HTTP ${generated.status}`)
    box.token = generated.body.token.token
    let registered = await box.call('POST', '/api/v2/register', { http_client: receiver.url })
    // The gateway asks the receiver for a HEAD answer within 2 s; on an overloaded machine the
    // receiver (this process) may not get to answer it. A refused registration changes
    // nothing: tried again, at most twice more.
    for (let retry = 0; retry < 2 && registered.body?.returnCode === -30 && /no answer within/.test(registered.body.message); retry++) {
      log(`registration refused on a slow answer (${registered.body.message}); tried again`)
      registered = await box.call('POST', '/api/v2/register', { http_client: receiver.url })
    }
    if (registered.status !== 200) throw new Problem(`register: HTTP ${registered.status} ${JSON.stringify(registered.body)}`)
    log(`seed ${options.seed}: ${schedule.length} steps; data dir on ${disk.skipped ? 'the temporary directory' : 'a tmpfs'}`)

    for (const [index, step] of schedule.entries()) {
      const at = `step ${index + 1} (${describeStep(step)})`
      const stepStarted = Date.now()
      const did = await runStep(step)
      const checkStarted = Date.now()
      const found = await check()
      log(`${String(index + 1).padStart(3)}. ${describeStep(step)}: ${did} [${checkStarted - stepStarted} + ${Date.now() - checkStarted} ms]`)
      report.stepsRun++
      for (const problem of found) problems.push(`${at}: ${problem}`)
      if (problems.length) break
    }
    if (!problems.length) {
      const code = await box.gateway!.stop('SIGTERM')
      if (code !== 0) problems.push(`the gateway exited with ${code} on SIGTERM at the end`)
    }
  } catch (error) {
    problems.push(`step ${report.stepsRun + 1}: ${error instanceof Problem ? error.message : (error as Error).stack}`)
  } finally {
    if (box.gateway) await box.stop('SIGKILL')
    report.figures.slowStarts = box.slowStarts
    report.figures.deliveries = receiver.requests.filter((r) => r.method === 'POST').length
    await receiver.close()
    disk.release()
    rmSync(dir, { recursive: true, force: true })
    directories.delete(dir)
  }
  report.durationMs = Date.now() - started
  return report

  // ---- steps -------------------------------------------------------------------------

  async function runStep(step: Step): Promise<string> {
    switch (step.kind) {
      case 'create':
        return create(step)
      case 'locate':
        return locate(step)
      case 'page':
      case 'unpage':
        return page(step)
      case 'clear':
        return clear(step)
      case 'wait':
        await sleep(step.ms)
        return `${step.ms} ms passed`
      case 'kill':
        await box.stop('SIGKILL')
        if (step.downOffsetSec !== null) setClock(step.downOffsetSec, world.synchronized)
        await box.start()
        report.figures.starts++
        return `killed; started again (run ${box.run}) at ${offsetText()}`
      case 'powercut':
        await box.stop('SIGKILL')
        setClock(step.offsetSec, false)
        await box.start()
        report.figures.starts++
        return `power cut; booted (run ${box.run}) at ${offsetText()}, not synchronised`
      case 'restart': {
        const code = await box.stop('SIGTERM')
        if (code !== 0) throw new Problem(`the gateway exited with ${code} on SIGTERM`)
        await box.start()
        report.figures.starts++
        return `stopped and started (run ${box.run})`
      }
      case 'step': {
        const apartBefore = await box.gatewayApart()
        setClock(world.offsetSec + step.deltaSec, world.synchronized)
        const how = await box.settledAfterStep(step.deltaSec, apartBefore, false)
        return `stepped to ${offsetText()}; the gateway's clock ${how}`
      }
      case 'sync': {
        const moved = step.synchronized && world.offsetSec !== 0
        const delta = -world.offsetSec
        setClock(step.synchronized ? 0 : world.offsetSec, step.synchronized)
        await box.syncSeen()
        // Synchronised wins: the gateway follows the system clock (a step mended, a start behind ended).
        if (step.synchronized) await box.settledAfterStep(delta, 0, true)
        return step.synchronized ? `network time: synchronised${moved ? `, stepped ${delta} s` : ''}` : 'network time lost'
      }
      case 'backup':
        return backup()
      case 'restore':
        return restore(step.pick)
      case 'fulldisk':
        return fullDisk()
    }
  }

  function setClock(offsetSec: number, synchronized: boolean): void {
    if (offsetSec !== world.offsetSec) {
      world.offsetSec = offsetSec
      clock.offset(`${offsetSec >= 0 ? '+' : ''}${offsetSec}`)
      if (box.running) box.stepped()
    }
    if (synchronized !== world.synchronized) {
      world.synchronized = synchronized
      clock.synchronized(synchronized)
    }
  }

  function offsetText(): string {
    return world.offsetSec === 0 ? 'the right time' : `${world.offsetSec > 0 ? '+' : ''}${world.offsetSec} s`
  }

  /** A stamp for a time the gateway takes now (during a request from `sent` to now). */
  function stamp(sent: number): Stamp {
    const now = Date.now()
    return { real: (sent + now) / 2, slackMs: (now - sent) / 2, run: box.run, trusted: box.trusted(), stepsBefore: box.stepsInRun.get(box.run) ?? 0 }
  }

  async function create(step: Extract<Step, { kind: 'create' }>): Promise<string> {
    const names = (step.via === 'sim' ? simNames : plainNames).filter((name) => !active.has(name))
    const name = pickFrom(names, step.pick)
    if (name === undefined) return 'every name is active: nothing to create'
    const sent = Date.now()
    const answer =
      step.via === 'sim'
        ? await box.call('POST', '/api/v2/simulator/start', { tracker: name, toGo: step.orderType === 'TO_GO' })
        : await box.call('POST', step.via === 'v1' ? '/api/v1/activeorders?dummy_tracker_address=true' : '/api/v2/activeorders', {
            name,
            orderType: step.orderType,
            ...(step.table !== null ? { locationName: step.table } : {}),
          })
    const view = answer.body.activeorder as Json | undefined
    if (answer.status !== 200 || !view || (step.via === 'v2' && answer.body.returnCode !== 5))
      throw new Problem(`create ${name} (${step.via}) answered HTTP ${answer.status} ${JSON.stringify(answer.body)}`)
    acknowledge({ uuid: view.uuid, name, locationName: view.locationName, tracker: step.via !== 'v2', created: stamp(sent) })
    return `created ${name} (${view.uuid}) via ${step.via}`
  }

  function acknowledge(order: ModelOrder): void {
    active.set(order.name, order)
    created.add(order.uuid)
    report.figures.acknowledged++
  }

  async function locate(step: Extract<Step, { kind: 'locate' }>): Promise<string> {
    const candidates = [...active.values()].filter((o) => step.via === 'v2' || o.name <= simNames.length)
    const order = pickFrom(candidates, step.pick)
    if (!order) return 'no active order to locate'
    const table = String(step.table) === order.locationName ? (step.table % 30) + 1 : step.table
    const answer =
      step.via === 'sim'
        ? await box.call('POST', '/api/v2/simulator/place', { tracker: order.name, table })
        : await box.call('POST', '/api/v2/activeorders', { name: order.name, orderType: 'ON_PREMISE', locationName: table })
    const view = answer.body.activeorder as Json | undefined
    if (answer.status !== 200 || view?.uuid !== order.uuid || view.locationName !== String(table))
      throw new Problem(`locate ${order.name} at ${table} (${step.via}) answered HTTP ${answer.status} ${JSON.stringify(answer.body)}`)
    order.locationName = String(table)
    report.figures.acknowledged++
    return `located ${order.name} at ${table} via ${step.via}`
  }

  async function page(step: Extract<Step, { kind: 'page' | 'unpage' }>): Promise<string> {
    const order = pickFrom(
      [...active.values()].filter((o) => o.tracker),
      step.pick,
    )
    if (!order) return 'no active order with a tracker'
    const answer =
      step.kind === 'page'
        ? await box.call('POST', `/api/v2/activeorders/${order.name}/page`, { tracking: step.tracking })
        : await box.call('DELETE', `/api/v2/activeorders/${order.name}/page`)
    if (answer.status !== 200) throw new Problem(`${step.kind} ${order.name} answered HTTP ${answer.status} ${JSON.stringify(answer.body)}`)
    report.figures.acknowledged++
    return `${step.kind === 'page' ? 'paged' : 'paging cancelled for'} ${order.name}`
  }

  async function clear(step: Extract<Step, { kind: 'clear' }>): Promise<string> {
    const candidates = [...active.values()].filter((o) => step.via !== 'sim' || o.name <= simNames.length)
    const order = pickFrom(candidates, step.pick)
    if (!order) return 'no active order to clear'
    const sent = Date.now()
    const answer =
      step.via === 'sim'
        ? await box.call('POST', '/api/v2/simulator/clear', { tracker: order.name })
        : step.via === 'v1'
          ? await box.call('DELETE', `/api/v1/activeorders/${order.name}`)
          : await box.call('DELETE', `/api/v2/activeorders/${step.via === 'v2-uuid' ? order.uuid : order.name}`)
    if (answer.status !== 200) throw new Problem(`clear ${order.name} (${step.via}) answered HTTP ${answer.status} ${JSON.stringify(answer.body)}`)
    active.delete(order.name)
    cleared.set(order.uuid, { uuid: order.uuid, name: order.name, locationName: order.locationName, created: order.created, cleared: stamp(sent) })
    report.figures.acknowledged++
    return `cleared ${order.name} via ${step.via}`
  }

  async function backup(): Promise<string> {
    const file = path.join(backupsDir, `backup-${backups.length}.tar`)
    const done = (await sendControl(box.dataDir, 'backup.run', { to: file }, 120_000)) as { file: string; manifest: Json }
    const tlsInBackup = (done.manifest.parts as Json[]).some((part) => String(part.name).startsWith('tls/'))
    backups.push({
      file: done.file,
      takenAt: done.manifest.takenAt,
      spki: await box.tlsSpki(),
      tlsInBackup,
      active: new Map([...active].map(([name, o]) => [name, { ...o }])),
      cleared: new Map(cleared),
      created: new Set(created),
    })
    report.figures.backups++
    return `backup ${backups.length - 1} taken (seq ${done.manifest.seq}, ${done.manifest.counts.activeOrders} active, ${done.manifest.counts.historyRows} history rows${tlsInBackup ? ', TLS key included' : ''})`
  }

  async function restore(pick: number): Promise<string> {
    const taken = pickFrom(backups, pick)
    if (!taken) return 'no backup to restore'
    const number = backups.indexOf(taken)
    await box.stop('SIGKILL')
    const oldDataDir = box.dataDir
    const dataDir = nextDataDir()
    const restored = await runCli(['restore', taken.file, '--data-dir', dataDir], { ...clock.env, GATEWAY_CONFIG: configFile })
    if (restored.code !== 0) {
      const refusedForClock = /is before the backup was taken/.test(restored.stderr + restored.stdout)
      if (refusedForClock && Date.now() + world.offsetSec * 1000 < taken.takenAt + 5_000) {
        // As documented: a restore on a clock earlier than the backup is refused. The old box goes on.
        report.figures.restoresRefused++
        box.dataDir = oldDataDir
        await box.start()
        report.figures.starts++
        return `restore of backup ${number} refused as documented (the clock, ${offsetText()}, is before the backup's time); the old box started again`
      }
      throw new Problem(`gateway restore of backup ${number} failed (exit ${restored.code}): ${restored.stderr || restored.stdout}`)
    }
    box.dataDir = dataDir
    active.clear()
    for (const [name, o] of taken.active) active.set(name, { ...o })
    cleared.clear()
    for (const [uuid, c] of taken.cleared) cleared.set(uuid, c)
    created.clear()
    for (const uuid of taken.created) created.add(uuid)
    await box.start()
    report.figures.starts++
    report.figures.restores++
    let tlsNote: string
    if (!taken.tlsInBackup) {
      report.figures.tlsNotInBackup++
      tlsNote = 'TLS identity not compared: the backup holds no TLS key'
    } else {
      report.figures.tlsCompared++
      const spki = await box.tlsSpki()
      if (spki !== taken.spki)
        throw new Problem(
          `the restored box answers HTTPS with another public key (SPKI sha256 ${spki}) than the box the backup was taken on (${taken.spki}): every pinned client stops working`,
        )
      tlsNote = 'same TLS public key'
    }
    return `restored backup ${number} into a fresh data dir (run ${box.run}; ${tlsNote})`
  }

  async function fullDisk(): Promise<string> {
    if (disk.skipped) return `skipped: ${disk.skipped}`
    report.figures.fullDisks++
    const filler = path.join(root, 'filler')
    fill(filler)
    const notes: string[] = []
    // A create on a full disk: refused (503, -37) and nothing changed, or acknowledged.
    const name = plainNames.find((n) => !active.has(n))
    if (name !== undefined) {
      const sent = Date.now()
      const answer = await box.call('POST', '/api/v2/activeorders', { name, orderType: 'TO_GO' })
      if (answer.status === 200) {
        acknowledge({ uuid: answer.body.activeorder.uuid, name, locationName: '', tracker: false, created: stamp(sent) })
        notes.push(`create ${name} acknowledged`)
      } else if (answer.status === 503 && answer.body.returnCode === -37) notes.push(`create ${name} refused with -37`)
      else throw new Problem(`create ${name} on a full disk answered HTTP ${answer.status} ${JSON.stringify(answer.body)} (expected 503/-37 or 200)`)
    }
    // A backup onto the full file system fails, and must free what it held.
    try {
      await sendControl(box.dataDir, 'backup.run', { to: path.join(backupsDir, 'on-full-disk.tar') }, 120_000)
      notes.push('a backup still fitted')
    } catch (error) {
      notes.push(`backup refused (${(error as Error).message.slice(0, 80)})`)
    }
    unlinkSync(filler)
    const held = deletedFilesHeld(box.gateway!.child.pid!, root)
    if (held.length)
      throw new Problem(`after a failed backup on a full disk the gateway still holds deleted files open (their space is not freed): ${held.join(', ')}`)
    // Space is back: a write works at once.
    if (name !== undefined && !active.has(name)) {
      const sent = Date.now()
      const answer = await box.call('POST', '/api/v2/activeorders', { name, orderType: 'TO_GO' })
      if (answer.status !== 200) throw new Problem(`create ${name} after space came back answered HTTP ${answer.status} ${JSON.stringify(answer.body)}`)
      acknowledge({ uuid: answer.body.activeorder.uuid, name, locationName: '', tracker: false, created: stamp(sent) })
      notes.push(`then create ${name} acknowledged`)
    }
    return `disk filled: ${notes.join('; ')}; space freed, nothing deleted held open`
  }

  // ---- checks ------------------------------------------------------------------------

  async function check(): Promise<string[]> {
    const seen = await box.observe(world)
    const names = new Set([...simNames, ...plainNames])
    const found = [
      ...checkRecoveredState(
        { active, cleared: new Map([...cleared].map(([uuid, c]) => [uuid, { name: c.name, locationName: c.locationName }])), created, names },
        [],
        seen.observation.active.map((o) => ({ uuid: o.uuid, name: o.name, locationName: o.locationName })),
        seen.historyViews,
      ),
      ...checkActiveTimes(active, seen.observation),
      ...checkHistoryTimes(cleared, seen.observation),
      ...checkStatistics(seen.observation),
      ...checkDeliveries(deliveriesOf(receiver)).problems,
    ]
    // A webhook problem stays in the receiver's record: report each once.
    return found.filter((problem) => !knownProblems.has(problem) && knownProblems.add(problem))
  }
}

/**
 * The box's own key and certificate, made here as its first start would (runtime/host/tls):
 * that start makes them in a child process below the gateway's priority, which on a machine
 * loaded far beyond its cores can take longer than a start may. Dated four days back, so a
 * clock stepped back up to three days still finds it valid; the restore check compares keys.
 */
function giveOwnCertificate(dataDir: string): void {
  const made = makeSelfSigned({ ...localNames(), now: new Date(Date.now() - 4 * 86_400_000) })
  mkdirSync(tlsDir(dataDir), { recursive: true, mode: 0o700 })
  writeFileSync(path.join(tlsDir(dataDir), 'self-signed.key'), made.keyPem, { mode: 0o600 })
  writeFileSync(path.join(tlsDir(dataDir), 'self-signed.crt'), made.certPem, { mode: 0o600 })
}

/** The receiver's POSTs in the crash test's form. */
function deliveriesOf(receiver: Receiver): Delivery[] {
  return receiver.requests
    .filter((r) => r.method === 'POST')
    .map((r) => {
      const body = JSON.parse(r.body) as Json
      return {
        path: r.url,
        id: String(r.headers['webhook-id']),
        seq: body.seq,
        body: r.body,
        uuid: body.uuid,
        changeType: body.changeType,
        state: body.state,
        locationName: body.locationName,
      }
    })
}

/** The gateway process of the schedule, its data dir, its runs and the world's clock as it saw it. */
class Box {
  gateway: GatewayProcess | undefined
  dataDir = ''
  token = ''
  /** The gateway process now running (1 for the first start of the schedule). */
  run = 0
  readonly stepsInRun = new Map<number, number>()
  running = false
  /** Whether the gateway has reported the clock synchronised since the world made it so. */
  #syncSeen = false

  readonly clock: FakeSystemClock
  readonly configFile: string
  readonly world: { offsetSec: number; synchronized: boolean }

  constructor(clock: FakeSystemClock, configFile: string, world: { offsetSec: number; synchronized: boolean }) {
    this.clock = clock
    this.configFile = configFile
    this.world = world
  }

  /** Starts that did not finish within startGatewayProcess's 20 s and were killed and tried again. */
  slowStarts = 0

  async start(): Promise<void> {
    this.running = false
    for (let attempt = 1; ; attempt++) {
      try {
        this.gateway = await startGatewayProcess(this.dataDir, { ...this.clock.env, GATEWAY_CONFIG: this.configFile, TZ: 'UTC' })
        break
      } catch (error) {
        // On a machine loaded far beyond its cores a start can take longer than the helper's
        // 20 s; the helper then kills it (one more kill, during start-up). A gateway that
        // exited by itself is a failure, never retried.
        if (!/gateway did not start/.test((error as Error).message) || attempt === 3) throw error
        this.slowStarts++
      }
    }
    active.add(this.gateway)
    this.run++
    this.stepsInRun.set(this.run, 0)
    this.running = true
    this.#syncSeen = false
    await this.syncSeen()
  }

  async stop(signal: NodeJS.Signals): Promise<number | null> {
    this.running = false
    const code = await this.gateway!.stop(signal)
    active.delete(this.gateway!)
    return code
  }

  /** A step of the running gateway's clock: times it took before it are mended by it. */
  stepped(): void {
    this.stepsInRun.set(this.run, (this.stepsInRun.get(this.run) ?? 0) + 1)
  }

  /** Whether a time the gateway takes now is right and known to be. */
  trusted(): boolean {
    return this.world.synchronized && this.world.offsetSec === 0 && this.#syncSeen
  }

  async call(method: string, url: string, body?: unknown): Promise<{ status: number; body: Json }> {
    const response = await fetch(this.gateway!.url + url, {
      method,
      headers: { ...(this.token ? { authorization: `Bearer ${this.token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    })
    return { status: response.status, body: (await response.json()) as Json }
  }

  async status(): Promise<Json> {
    const answer = await this.call('GET', '/api/v2/gateway')
    if (answer.status !== 200) throw new Problem(`GET /api/v2/gateway answered HTTP ${answer.status} ${JSON.stringify(answer.body)}`)
    return answer.body.gatewayStatus
  }

  /** The clock's state (gatewayStatus.clock) through the control socket: no token needed. */
  async clockState(): Promise<Json> {
    return (await sendControl(this.dataDir, 'clock.status')) as Json
  }

  async lastJump(): Promise<string> {
    return JSON.stringify((await this.clockState()).lastJump)
  }

  /** How far the gateway's clock is from the true time now (ms). */
  async gatewayApart(): Promise<number> {
    const status = await this.status()
    return parseLocal(status.currentTime, status.utcOffset) - Date.now()
  }

  /**
   * After a step of the system clock (or synchronisation): waits until the gateway has
   * settled on one of what docs/api.md ("Clock") allows: its clock follows the system's (a
   * step mended, synchronised wins), stands at the high-water mark (`behind`: a step or a
   * start behind the times already written), or, unless `mustFollow`, went on unmoved (a
   * step away from a time this run knew synchronised is held).
   */
  async settledAfterStep(deltaSec: number, apartBefore: number, mustFollow: boolean): Promise<string> {
    let apart = NaN
    let how = ''
    try {
      await until(
        async () => {
          const status = await this.status()
          apart = parseLocal(status.currentTime, status.utcOffset) - Date.now()
          const system = this.world.offsetSec * 1000
          if (Math.abs(apart - system) < 2_500) how = 'followed'
          else if (status.clock.behind) how = 'stopped at the high-water mark'
          else if (!mustFollow && Math.abs(apart - apartBefore) < 2_500) how = 'held'
          return how !== ''
        },
        'the step',
        15_000,
      )
    } catch {
      throw new Problem(
        `15 s after a clock step of ${deltaSec} s the gateway's clock is ${(apart / 1000).toFixed(1)} s from the true time, the system's ${this.world.offsetSec} s (lastJump ${await this.lastJump()})`,
      )
    }
    return how
  }

  /** Waits until the gateway reports the world's synchronisation. */
  async syncSeen(): Promise<void> {
    let last: unknown
    try {
      await until(
        async () => {
          last = (await this.clockState()).synchronized
          return last === this.world.synchronized
        },
        'the synchronisation state',
        15_000,
      )
    } catch {
      throw new Problem(`the gateway reports synchronized ${JSON.stringify(last)} 15 s after the system said ${this.world.synchronized}`)
    }
    this.#syncSeen = this.world.synchronized
  }

  /** SHA-256 of the SubjectPublicKeyInfo the HTTPS port presents (base64), waiting for HTTPS to listen. */
  async tlsSpki(): Promise<string | null> {
    let port = 0
    await until(
      async () => {
        port = (await this.call('GET', '/api/v2/gateway/tls')).body.tls?.port ?? 0
        return port > 0
      },
      'HTTPS to listen',
      20_000,
    )
    const socket = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false })
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('secureConnect', resolve)
        socket.once('error', reject)
      })
      const certificate = socket.getPeerX509Certificate()
      if (!certificate) return null
      return createHash('sha256')
        .update(certificate.publicKey.export({ type: 'spki', format: 'der' }))
        .digest('base64')
    } finally {
      socket.destroy()
    }
  }

  /** Everything the invariants look at, read now. */
  async observe(world: {
    offsetSec: number
    synchronized: boolean
  }): Promise<{ observation: Observation; historyViews: { uuid: string; name: number; locationName: string }[] }> {
    const must = async (url: string) => {
      const answer = await this.call('GET', url)
      if (answer.status !== 200) throw new Problem(`GET ${url} answered HTTP ${answer.status} ${JSON.stringify(answer.body)}`)
      return answer.body
    }
    const t0 = Date.now()
    const before = await this.status()
    const tStatus = Date.now()
    const utcOffset = before.utcOffset as string
    const activeBody = await must('/api/v2/activeorders')
    const tActive = Date.now()
    const history: Observation['history'] = []
    const historyViews: { uuid: string; name: number; locationName: string }[] = []
    let asOf = ''
    for (let offset = 0; ; offset += 100) {
      const page = await must(`/api/v2/orders?limit=100&offset=${offset}${asOf && `&as_of=${asOf}`}`)
      asOf = page.asOf
      for (const o of page.items as Json[]) {
        history.push({
          uuid: o.uuid,
          name: Number(o.name),
          started: Date.parse(o.orderStarted),
          located: o.orderLocated ? Date.parse(o.orderLocated) : null,
          cleared: Date.parse(o.orderCleared),
        })
        historyViews.push({ uuid: o.uuid, name: Number(o.name), locationName: o.locationName ?? '' })
      }
      if (offset + 100 >= Number(page.count)) break
    }
    const statistics = (await must('/api/v2/statistics')).statistics
    const after = await this.status()
    const observation: Observation = {
      real: (t0 + tActive) / 2,
      spanMs: tActive - t0,
      gatewayNow: parseLocal(before.currentTime, utcOffset),
      gatewayNowReal: (t0 + tStatus) / 2,
      gatewayNowAfter: parseLocal(after.currentTime, after.utcOffset),
      offsetMs: world.offsetSec * 1000,
      trustedNow: this.trusted(),
      run: this.run,
      stepsInRun: new Map(this.stepsInRun),
      active: (activeBody.items as Json[]).map((o) => ({
        uuid: o.uuid,
        name: Number(o.name),
        locationName: o.locationName,
        created: parseLocal(o.created, utcOffset),
        elapsedTime: o.elapsedTime,
      })),
      history,
      statistics,
      utcOffsetMs: offsetMsOf(utcOffset),
    }
    return { observation, historyViews }
  }
}

/** What runs now, for abandon(): gateways and mounted file systems. */
const active = new Set<GatewayProcess>()
const mounted = new Set<string>()
const directories = new Set<string>()

/** The runner is being stopped (Ctrl-C): kill this process's gateways and unmount its file systems, now. */
export function abandon(): void {
  for (const gateway of active) gateway.child.kill('SIGKILL')
  // A gateway still starting is not in `active` yet: every child of this process goes.
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === process.pid) process.kill(Number(pid), 'SIGKILL')
    } catch {}
  }
  for (const dir of mounted) {
    try {
      execFileSync('umount', ['-l', dir], { stdio: 'pipe' })
    } catch {}
  }
  for (const dir of directories) rmSync(dir, { recursive: true, force: true })
}

/** A 64 MiB tmpfs for the data dirs and backups (so the disk can really fill), or a plain directory and the reason. */
function mountSmallFileSystem(dir: string): { root: string; skipped: string | null; release: () => void } {
  mkdirSync(dir)
  if (process.env.NEMESIS_FULL_DISK === '0') return { root: dir, skipped: 'NEMESIS_FULL_DISK=0', release: () => {} }
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64m,mode=0700', 'tmpfs', dir], { stdio: 'pipe' })
  } catch (error) {
    const reason = ((error as { stderr?: Buffer }).stderr?.toString().trim() || (error as Error).message).split('\n')[0]
    return { root: dir, skipped: `mounting a tmpfs is not allowed here (${reason}): the full disk needs root`, release: () => {} }
  }
  mounted.add(dir)
  return {
    root: dir,
    skipped: null,
    release: () => {
      mounted.delete(dir)
      try {
        execFileSync('umount', [dir], { stdio: 'pipe' })
      } catch {
        execFileSync('umount', ['-l', dir], { stdio: 'pipe' })
      }
    },
  }
}

/** Writes `file` until the file system has no room left. */
function fill(file: string): void {
  const fd = openSync(file, 'w')
  try {
    for (const size of [1 << 20, 1 << 16, 1 << 12, 1 << 9]) {
      const chunk = Buffer.alloc(size, 0x5a)
      try {
        for (;;) writeSync(fd, chunk)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error
      }
    }
  } finally {
    closeSync(fd)
  }
  const free = statfsSync(path.dirname(file))
  if (free.bavail > 1) throw new Problem(`the file system still has ${free.bavail} free blocks after filling it`)
}

/** Files under `root` the process holds open although they were deleted. */
function deletedFilesHeld(pid: number, root: string): string[] {
  const held: string[] = []
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let target: string
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`)
    } catch {
      continue
    }
    if (target.startsWith(root) && target.endsWith(' (deleted)')) held.push(target)
  }
  return held
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** The schedule and what ran, for a failure's print-out. */
export function describeFailure(report: NemesisReport): string {
  return [
    `nemesis FAILED, seed ${report.seed} (repeat with SEED=${report.seed}), after ${report.stepsRun} of ${report.schedule.length} steps:`,
    ...report.problems.map((p) => `  problem: ${p}`),
    'schedule:',
    ...describeSchedule(report.schedule),
    'as run:',
    ...report.log.map((line) => `  ${line}`),
  ].join('\n')
}
