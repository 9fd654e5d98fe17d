// The crash test (issue 9, reliability matrix F1): the real gateway process on one data dir,
// a mixed concurrent write load over HTTP, SIGKILL at a seeded random moment, restart,
// verify. Shared by `npm run test:crash` (scripts/crash-test.ts, 30 rounds) and the scaled
// run inside `npm test` (tests/crash/crash.test.ts). The rules themselves live in verify.ts.
//
// Load: one worker per slice of order names (so every order has one writer and the harness
// knows what each acknowledged answer must have done), one worker registering and removing
// extra webhook URLs, one reader. A worker has at most one request in flight; when the
// gateway dies that request is "pending": it may or may not have happened.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Webhook } from 'standardwebhooks'
import { maxBacklog } from '../../lib/webhooks/outbox.ts'
import { sendControl } from '../../runtime/control/control.ts'
import { startGatewayProcess, type CliChoice, type GatewayProcess } from '../helpers/process.ts'
import { startReceiver, type Receiver } from '../helpers/webhooks.ts'
import {
  type AckedOrder,
  appliedInFlight,
  checkDeliveries,
  checkExpectedArrived,
  checkRecoveredState,
  checkRegistrations,
  type Delivery,
  type ExpectedChange,
  type OrderView,
  type PendingOp,
  prng,
} from './verify.ts'

export interface CrashOptions {
  rounds: number
  seed: number
  /** Order-writing workers (each owns its names). */
  workers?: number
  /** The kill comes this long after the load starts: uniform in [minKillMs, maxKillMs]. */
  minKillMs?: number
  maxKillMs?: number
  /** Share of webhook POSTs the receiver refuses with 503 (exercises retries). */
  refuseShare?: number
  /** How the gateway is started (default: the sources, runtime/cli.ts, without npm start's flags). */
  gateway?: CliChoice
  log?: (line: string) => void
}

export interface RoundFigures {
  round: number
  killAfterMs: number
  /** 2xx answers received before the kill (order changes and registrations). */
  acknowledged: number
  /** Requests cut off by the kill. */
  pending: number
  restartMs: number
}

export interface CrashReport {
  seed: number
  rounds: RoundFigures[]
  problems: string[]
  acknowledgedChanges: number
  deliveries: number
  duplicates: number
  refused: number
  drainMs: number
  durationMs: number
  /** In-flight requests that visibly took effect, and how many of those were never announced. */
  inFlightApplied: number
  inFlightUnannounced: string[]
}

const simTrackers = 20
const tables = 30
const extraHooks = 3

type Json = Record<string, any>

class Killed extends Error {}

interface Session {
  gateway: GatewayProcess
  token: string
  /** Set just before SIGKILL: any failure after this is the kill, not a bug. */
  killed: boolean
}

export async function runCrashTest(options: CrashOptions): Promise<CrashReport> {
  const started = Date.now()
  const log = options.log ?? (() => {})
  const workers = options.workers ?? 4
  const minKill = options.minKillMs ?? 200
  const maxKill = options.maxKillMs ?? 1500
  const refuseShare = options.refuseShare ?? 0.05
  const rng = prng(options.seed)
  const problems: string[] = []
  const dir = await mkdtemp(path.join(tmpdir(), 'crash-'))
  const dataDir = path.join(dir, 'data')
  const configFile = path.join(dir, 'gateway.config.json')
  await writeFile(
    configFile,
    // Datafiles compacted every few dozen lines, so kills land during compactions too.
    JSON.stringify({
      host: '127.0.0.1',
      mdns: { enabled: false },
      storage: { compactAfterLines: 40 },
      webhooks: { allowLoopback: true, retrySchedule: [20, 100], timeoutMs: 2000 },
    }),
  )
  const env = { GATEWAY_CONFIG: configFile }

  // The receiver stays up across every restart and records what it accepted.
  const deliveries: Delivery[] = []
  let refused = 0
  let mainSecret: Webhook | undefined
  const receiverRng = prng(options.seed ^ 0x5eed)
  const receiver: Receiver = await startReceiver('/main')
  const origin = `http://127.0.0.1:${receiver.port}`
  const mainUrl = `${origin}/main`
  const mainDeliveries = () => deliveries.filter((d) => d.path === '/main')
  const extraUrls = Array.from({ length: extraHooks }, (_, i) => `${origin}/extra-${i}`)
  receiver.respond = (request) => {
    if (request.method !== 'POST') return 200
    if (receiverRng() < refuseShare) {
      refused++
      return 503
    }
    const body = JSON.parse(request.body) as Json
    const id = String(request.headers['webhook-id'])
    if (request.url === '/main' && mainSecret) {
      try {
        mainSecret.verify(request.body, request.headers as Record<string, string>)
      } catch (error) {
        problems.push(`webhook ${id} to /main: signature does not verify (${(error as Error).message})`)
      }
    }
    deliveries.push({
      path: request.url,
      id,
      seq: body.seq,
      body: request.body,
      uuid: body.uuid,
      changeType: body.changeType,
      state: body.state,
      locationName: body.locationName,
    })
    return 200
  }

  // What the harness holds as acknowledged.
  const names = new Set<number>()
  const active = new Map<number, AckedOrder>()
  const cleared = new Map<string, { name: number; locationName: string }>()
  const created = new Set<string>()
  const expected: ExpectedChange[] = []
  const registrations = new Map<string, boolean>([[mainUrl, true]])
  const workerNames: number[][] = Array.from({ length: workers }, () => [])
  for (let t = 1; t <= simTrackers; t++) workerNames[(t - 1) % workers]!.push(t)
  for (let w = 0; w < workers; w++) for (let k = 1; k <= 6; k++) workerNames[w]!.push(100 * (w + 1) + k)
  for (const list of workerNames) for (const name of list) names.add(name)

  const start = () => startGatewayProcess(dataDir, env, [], options.gateway)
  let session: Session = { gateway: await start(), token: '', killed: false }
  const report: CrashReport = {
    seed: options.seed,
    rounds: [],
    problems,
    acknowledgedChanges: 0,
    deliveries: 0,
    duplicates: 0,
    refused: 0,
    drainMs: 0,
    durationMs: 0,
    inFlightApplied: 0,
    inFlightUnannounced: [],
  }
  const applied: ExpectedChange[] = []
  try {
    await sendControl(dataDir, 'button.press')
    const generated = await call(session, 'GET', '/api/v2/accesstoken/generate?name=crash-test')
    if (generated.status !== 201) throw new Error(`token: HTTP ${generated.status}`)
    session.token = generated.body.token.token
    const registered = await call(session, 'POST', '/api/v2/register', { http_client: mainUrl })
    if (registered.status !== 200) throw new Error(`register: HTTP ${registered.status} ${JSON.stringify(registered.body)}`)
    mainSecret = new Webhook(registered.body.webhook.secret)

    for (let round = 1; round <= options.rounds; round++) {
      await backlogBelow(session, roundStartBacklog, problems, round)
      const killAfterMs = Math.round(minKill + rng() * (maxKill - minKill))
      const pending: PendingOp[] = []
      const pendingRegs = new Set<string>()
      let acknowledged = 0
      const context: WorkerContext = {
        session,
        round,
        problems,
        active,
        cleared,
        created,
        expected,
        pending,
        ack: () => acknowledged++,
      }
      const load = [
        ...workerNames.map((list, w) => orderWorker(context, list, prng(options.seed + round * 1000 + w))),
        registrationWorker(context, registrations, extraUrls, pendingRegs, prng(options.seed + round * 1000 + 999)),
        readerWorker(context),
      ]
      await sleep(killAfterMs)
      session.killed = true
      await session.gateway.stop('SIGKILL')
      await Promise.all(load)

      const restartAt = Date.now()
      session = { gateway: await start(), token: session.token, killed: false }
      const restartMs = Date.now() - restartAt
      const figures = { round, killAfterMs, acknowledged, pending: pending.length + pendingRegs.size, restartMs }
      report.rounds.push(figures)
      log(`round ${round}: killed after ${killAfterMs} ms, ${acknowledged} acknowledged, ${figures.pending} in flight, restart ${restartMs} ms`)

      const state = await readState(session)
      const found = [
        ...checkRecoveredState({ active, cleared, created, names }, pending, state.active, state.history),
        ...checkRegistrations(registrations, pendingRegs, state.registrations),
      ]
      for (const problem of found) problems.push(`round ${round}: ${problem}`)
      applied.push(...appliedInFlight({ active, cleared, created, names }, pending, state.active, state.history))
      reconcile(state, names, active, cleared, created)
      for (const url of extraUrls) registrations.set(url, state.registrations.includes(url))
    }

    const drainStarted = Date.now()
    await drain(session, [...expected, ...applied], mainDeliveries, problems)
    report.drainMs = Date.now() - drainStarted
    // Changes dropped at the outbox's cap would show as lost below: say why first.
    const dropped = (await webhooksOf(session)).find((w) => w.url === mainUrl)?.dropped ?? 0
    if (dropped > 0)
      problems.push(`the main receiver's outbox passed its cap (${maxBacklog}): ${dropped} oldest changes dropped, as documented; the load outran delivery`)
    const delivered = checkDeliveries(deliveries)
    problems.push(...delivered.problems)
    problems.push(...checkExpectedArrived(expected, mainDeliveries()))
    report.duplicates = delivered.duplicates
    report.inFlightApplied = applied.length
    report.inFlightUnannounced = applied
      .filter((change) => checkExpectedArrived([change], mainDeliveries()).length > 0)
      .map((c) => `${c.op}: ${c.changeType} of ${c.uuid}`)
    // All-or-nothing: a request cut off by the kill that changed the state must be announced too.
    for (const line of report.inFlightUnannounced) problems.push(`a change made by a request in flight at a kill was never announced: ${line}`)
    const code = await session.gateway.stop('SIGTERM')
    if (code !== 0) problems.push(`the gateway exited with ${code} on SIGTERM`)
  } finally {
    await session.gateway.stop('SIGKILL')
    await receiver.close()
    await rm(dir, { recursive: true, force: true })
  }
  report.acknowledgedChanges = expected.length
  report.deliveries = deliveries.length
  report.refused = refused
  report.durationMs = Date.now() - started
  return report
}

interface WorkerContext {
  session: Session
  round: number
  problems: string[]
  active: Map<number, AckedOrder>
  cleared: Map<string, { name: number; locationName: string }>
  created: Set<string>
  expected: ExpectedChange[]
  pending: PendingOp[]
  ack: () => void
}

interface Answer {
  status: number
  body: Json
}

/** One request; Killed when it failed because the gateway was killed. */
async function call(session: Session, method: string, url: string, body?: unknown): Promise<Answer> {
  try {
    const response = await fetch(session.gateway.url + url, {
      method,
      headers: {
        ...(session.token ? { authorization: `Bearer ${session.token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    })
    // The answer counts only once it has fully arrived.
    return { status: response.status, body: (await response.json()) as Json }
  } catch (error) {
    if (session.killed) throw new Killed()
    throw error
  }
}

const ok = (status: number) => status >= 200 && status < 300

async function orderWorker(context: WorkerContext, names: number[], rng: () => number): Promise<void> {
  const { session, active, expected, problems } = context
  const pick = <T>(list: readonly T[]) => list[Math.floor(rng() * list.length)]!
  while (!session.killed) {
    const name = pick(names)
    const sim = name <= simTrackers
    const order = active.get(name)
    const roll = rng()
    let pending: PendingOp
    let request: { method: string; url: string; body?: unknown; what: string }
    let onAck: (answer: Answer) => void
    if (!order) {
      pending = { kind: 'create', name }
      if (sim) {
        request = { method: 'POST', url: '/api/v2/simulator/start', body: { tracker: name, toGo: roll < 0.3 }, what: `sim start ${name}` }
      } else {
        const locationName = roll < 0.5 ? 1 + Math.floor(rng() * tables) : undefined
        request = {
          method: 'POST',
          url: '/api/v2/activeorders',
          body: { name, orderType: roll < 0.25 ? 'TO_GO' : 'ON_PREMISE', locationName },
          what: `create ${name}`,
        }
      }
      onAck = ({ body }) => {
        const view = body.activeorder as Json | null
        if (!view || body.returnCode === 1009 || body.returnCode === 1010) {
          problems.push(`round ${context.round}: ${request.what} answered ${JSON.stringify(body)} for an order the harness holds as not active`)
          return
        }
        active.set(name, { uuid: view.uuid, locationName: view.locationName })
        context.created.add(view.uuid)
        expected.push({ uuid: view.uuid, changeType: 'ORDER_CREATED', locationName: view.locationName, state: view.state, op: request.what })
      }
    } else if (roll < 0.35 || (!sim && roll < 0.6)) {
      let table = 1 + Math.floor(rng() * tables)
      if (String(table) === order.locationName) table = (table % tables) + 1
      pending = { kind: 'locate', name, locationName: String(table) }
      request =
        sim && rng() < 0.5
          ? { method: 'POST', url: '/api/v2/simulator/place', body: { tracker: name, table }, what: `sim place ${name} on ${table}` }
          : { method: 'POST', url: '/api/v2/activeorders', body: { name, orderType: 'ON_PREMISE', locationName: table }, what: `locate ${name} at ${table}` }
      onAck = ({ body }) => {
        const view = body.activeorder as Json | null
        if (view?.uuid !== order.uuid || view.locationName !== String(table)) {
          problems.push(`round ${context.round}: ${request.what} answered ${JSON.stringify(view)}`)
          return
        }
        active.set(name, { uuid: order.uuid, locationName: String(table) })
        expected.push({ uuid: order.uuid, changeType: 'ORDER_MODIFIED', locationName: String(table), op: request.what })
      }
    } else if (sim && roll < 0.55) {
      pending = { kind: 'other', name }
      request = { method: 'POST', url: `/api/v2/activeorders/${name}/page`, body: { tracking: rng() < 0.7 }, what: `page ${name}` }
      onAck = () => expected.push({ uuid: order.uuid, changeType: 'ORDER_PAGED', op: request.what })
    } else if (sim && roll < 0.7) {
      pending = { kind: 'other', name }
      request = { method: 'DELETE', url: `/api/v2/activeorders/${name}/page`, what: `cancel paging ${name}` }
      onAck = ({ body }) => {
        if (body.returnCode === 1002) expected.push({ uuid: order.uuid, changeType: 'ORDER_MODIFIED', op: request.what })
      }
    } else {
      pending = { kind: 'clear', name }
      request =
        sim && rng() < 0.4
          ? { method: 'POST', url: '/api/v2/simulator/clear', body: { tracker: name }, what: `sim clear ${name}` }
          : { method: 'DELETE', url: `/api/v2/activeorders/${rng() < 0.5 ? name : order.uuid}`, what: `clear ${name}` }
      onAck = ({ body }) => {
        if (body.tracker && body.tracker.order !== null)
          problems.push(`round ${context.round}: ${request.what} left the tracker bound: ${JSON.stringify(body.tracker)}`)
        active.delete(name)
        context.cleared.set(order.uuid, { name, locationName: order.locationName })
        expected.push({ uuid: order.uuid, changeType: 'ORDER_CLEARED', state: 'cleared', locationName: order.locationName, op: request.what })
      }
    }
    context.pending.push(pending)
    let answer: Answer
    try {
      answer = await call(session, request.method, request.url, request.body)
    } catch (error) {
      if (error instanceof Killed) return
      context.problems.push(`round ${context.round}: ${request.what} failed before the kill: ${(error as Error).message}`)
      return
    }
    context.pending.splice(context.pending.indexOf(pending), 1)
    if (!ok(answer.status)) {
      problems.push(`round ${context.round}: ${request.what} answered HTTP ${answer.status} ${JSON.stringify(answer.body)}`)
      continue
    }
    context.ack()
    onAck(answer)
  }
}

async function registrationWorker(
  context: WorkerContext,
  registrations: Map<string, boolean>,
  urls: string[],
  pending: Set<string>,
  rng: () => number,
): Promise<void> {
  const { session, problems } = context
  while (!session.killed) {
    const url = urls[Math.floor(rng() * urls.length)]!
    const registered = registrations.get(url) === true
    pending.add(url)
    let answer: Answer
    try {
      answer = registered
        ? await call(session, 'DELETE', `/api/v2/register?http_client=${encodeURIComponent(url)}`)
        : await call(session, 'POST', '/api/v2/register', { http_client: url })
    } catch (error) {
      if (error instanceof Killed) return
      problems.push(`round ${context.round}: ${registered ? 'unregister' : 'register'} ${url} failed before the kill: ${(error as Error).message}`)
      return
    }
    pending.delete(url)
    if (!ok(answer.status)) {
      problems.push(`round ${context.round}: ${registered ? 'unregister' : 'register'} ${url} answered HTTP ${answer.status} ${JSON.stringify(answer.body)}`)
      return
    }
    context.ack()
    registrations.set(url, !registered)
    await sleep(10 + rng() * 40)
  }
}

/** Reads alongside the writes (they must never fail either). */
async function readerWorker(context: WorkerContext): Promise<void> {
  const { session } = context
  const urls = ['/api/v2/activeorders', '/api/v2/orders?limit=25', '/api/v2/register']
  for (let i = 0; !session.killed; i++) {
    try {
      const answer = await call(session, 'GET', urls[i % urls.length]!)
      if (!ok(answer.status)) context.problems.push(`round ${context.round}: GET ${urls[i % urls.length]} answered HTTP ${answer.status}`)
    } catch (error) {
      if (!(error instanceof Killed)) context.problems.push(`round ${context.round}: read failed before the kill: ${(error as Error).message}`)
      return
    }
    await sleep(5)
  }
}

interface GatewayState {
  active: (OrderView & { paged: boolean })[]
  history: OrderView[]
  registrations: string[]
}

async function readState(session: Session): Promise<GatewayState> {
  const must = async (url: string) => {
    const answer = await call(session, 'GET', url)
    if (answer.status !== 200) throw new Error(`GET ${url}: HTTP ${answer.status} ${JSON.stringify(answer.body)}`)
    return answer.body
  }
  const activeBody = await must('/api/v2/activeorders')
  const active = (activeBody.items as Json[]).map((o) => ({ uuid: o.uuid, name: Number(o.name), locationName: o.locationName, paged: o.paged }))
  const history: OrderView[] = []
  let asOf = ''
  for (let offset = 0; ; offset += 100) {
    const page = await must(`/api/v2/orders?limit=100&offset=${offset}${asOf && `&as_of=${asOf}`}`)
    asOf = page.asOf
    for (const o of page.items as Json[]) history.push({ uuid: o.uuid, name: Number(o.name), locationName: o.locationName ?? '' })
    if (offset + 100 >= Number(page.count)) break
  }
  const registrations = ((await must('/api/v2/register')).webhooks as Json[]).map((w) => w.url as string)
  return { active, history, registrations }
}

/** After the checks: what the gateway now holds becomes the acknowledged state (in-flight requests settled one way or the other). */
function reconcile(
  state: GatewayState,
  names: ReadonlySet<number>,
  active: Map<number, AckedOrder>,
  cleared: Map<string, { name: number; locationName: string }>,
  created: Set<string>,
): void {
  const history = new Map(state.history.map((o) => [o.uuid, o]))
  const byName = new Map(state.active.filter((o) => names.has(o.name)).map((o) => [o.name, o]))
  for (const name of names) {
    const before = active.get(name)
    const now = byName.get(name)
    if (before && before.uuid !== now?.uuid && history.has(before.uuid))
      cleared.set(before.uuid, { name, locationName: history.get(before.uuid)!.locationName })
    if (now) {
      active.set(name, { uuid: now.uuid, locationName: now.locationName })
      created.add(now.uuid)
    } else {
      active.delete(name)
    }
  }
}

/**
 * Waits until every outbox is empty and every given change has arrived; once the outboxes
 * are empty, changes still missing get 5 s more (they will then be reported missing).
 */
async function drain(session: Session, expected: ExpectedChange[], deliveries: () => Delivery[], problems: string[]): Promise<void> {
  const deadline = Date.now() + drainLimitMs
  let emptySince: number | undefined
  while (Date.now() < deadline) {
    const backlog = totalBacklog(await webhooksOf(session))
    if (backlog > 0) {
      emptySince = undefined
    } else {
      emptySince ??= Date.now()
      // Checked only once the outboxes are empty: the check walks every delivery, and doing it
      // (per change!) every 50 ms starved this process's own receiver as the run grew.
      if (checkExpectedArrived(expected, deliveries()).length === 0 || Date.now() - emptySince > 5_000) return
    }
    await sleep(50)
  }
  problems.push(`the webhook outbox did not drain within ${drainLimitMs / 1000} s`)
}

const drainLimitMs = 60_000

/**
 * A receiver gets its changes one at a time, in seq order, and the load here makes them
 * faster than that: over enough rounds the backlog would pass the outbox's cap (its oldest
 * entries dropped by design) and those changes would count as lost. So a round starts only
 * once the backlog is under a quarter of the cap; every kill still finds one to recover.
 */
const roundStartBacklog = maxBacklog / 4

async function backlogBelow(session: Session, limit: number, problems: string[], round: number): Promise<void> {
  const deadline = Date.now() + drainLimitMs
  while (totalBacklog(await webhooksOf(session)) >= limit) {
    if (Date.now() > deadline) return void problems.push(`round ${round}: the webhook backlog stayed at ${limit} or more for ${drainLimitMs / 1000} s`)
    await sleep(50)
  }
}

/** The registrations as GET /api/v2/register lists them (url, backlog, dropped, ...). */
async function webhooksOf(session: Session): Promise<Json[]> {
  return (await call(session, 'GET', '/api/v2/register')).body.webhooks as Json[]
}

function totalBacklog(webhooks: Json[]): number {
  return webhooks.reduce((sum, w) => sum + (w.backlog as number), 0)
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
