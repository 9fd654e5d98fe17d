// The real stack of HQ's process tests, shared by the degraded, kill, replay and nemesis tests:
// `gateway hq` processes the test can freeze, kill and start again; a gate (a TCP proxy) the
// test can cut between a client and the broker; a gateway's fleet side in this process (its
// change log and its real bridge, with the replay window HQ asks); the rows of one orderly
// apply of what the sites recorded, to compare HQ's database with; a seeded generator.
import { checkAnswersFrom } from '../../helpers/checked-origins.ts'
import { hqDescribedApi } from '../../helpers/hq-documented.ts'
import { spawn, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { ChangeLog } from '../../../lib/changes/change-log.ts'
import { fleetConfigSchema } from '../../../lib/fleet/config.ts'
import { fleetMessages } from '../../../lib/fleet/messages.ts'
import { FleetService } from '../../../lib/fleet/service.ts'
import { applyBatch } from '../../../lib/hq/apply.ts'
import { parseSiteMessage, type SiteMessage } from '../../../lib/hq/messages.ts'
import { Partitions } from '../../../lib/hq/schema.ts'
import { SystemClock } from '../../../lib/kernel/clock.ts'
import type { ActiveOrder } from '../../../lib/orders/types.ts'
import { Store } from '../../../lib/store/db.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import type { PostgresServer } from '../../helpers/postgres.ts'
import { cliPath } from '../../helpers/process.ts'
import { generousMs } from '../../helpers/until.ts'
import { freshDatabase, prefix, snapshot } from '../../lib/hq/fixtures.ts'

export interface HqProcess {
  child: ChildProcess
  /** The port its API listens on. */
  port: number
  output: () => string
  exited: Promise<number | null>
}

/** hq.config.json for one `gateway hq` process (API on a free loopback port); its path. */
export function writeHqConfig(dir: string, settings: { postgresUrl: string; brokerUrl: string; instanceId: string } & Record<string, unknown>): string {
  const { brokerUrl, ...rest } = settings
  const file = path.join(dir, `hq-${settings.instanceId}.json`)
  writeFileSync(file, JSON.stringify({ port: 0, host: '127.0.0.1', broker: { url: brokerUrl }, topicPrefix: prefix, batchWaitMs: 5, ...rest }))
  return file
}

/** `gateway hq --config <file>` as a process; resolves once it listens and has subscribed (a loaded machine may take minutes). */
export function startHqProcess(configFile: string): Promise<HqProcess> {
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', cliPath, 'hq', '--config', configFile], { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout!.on('data', (chunk) => (output += chunk))
  child.stderr!.on('data', (chunk) => (output += chunk))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`hq did not start: ${output}`)), 3 * generousMs)
    const check = () => {
      const port = /"port":(\d+)[^\n]*hq listening|hq listening[^\n]*"port":(\d+)/.exec(output)
      if (port && output.includes('hq ingest: subscribed')) {
        clearTimeout(timer)
        child.stdout!.off('data', check)
        const listening = Number(port[1] ?? port[2])
        // Its answers are held to HQ's OpenAPI document (checked-origins.ts) until it exits.
        void exited.then(checkAnswersFrom(`http://127.0.0.1:${listening}`, hqDescribedApi))
        resolve({ child, port: listening, output: () => output, exited })
      }
    }
    child.stdout!.on('data', check)
    void exited.then((code) => reject(new Error(`hq exited (${code}): ${output}`)))
  })
}

/** Ends a process the test started, frozen or not, and waits for it. */
export async function killHqProcess(hq: HqProcess): Promise<void> {
  if (hq.child.exitCode !== null || hq.child.signalCode !== null) return
  hq.child.kill('SIGCONT')
  hq.child.kill('SIGKILL')
  await hq.exited
}

export interface Gate {
  url: string
  /** Closes the current connections and refuses new ones. */
  close(): void
  open(): void
  stop(): Promise<void>
}

/** A loopback proxy to the broker that the test can close to new and current connections. */
export async function gate(port: number): Promise<Gate> {
  const sockets = new Set<net.Socket>()
  let open = true
  const server = net.createServer((inbound) => {
    if (!open) return void inbound.destroy()
    const outbound = net.connect(port, '127.0.0.1')
    // One side gone (the broker killed or refusing, the client away), the other goes too, as
    // on a real path: a pipe alone would leave it open until a keepalive noticed.
    for (const [socket, other] of [
      [inbound, outbound],
      [outbound, inbound],
    ] as const) {
      sockets.add(socket)
      socket.on('error', () => {})
      socket.on('close', () => {
        sockets.delete(socket)
        other.destroy()
      })
    }
    inbound.pipe(outbound).pipe(inbound)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `mqtt://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    close() {
      open = false
      for (const socket of sockets) socket.destroy()
    },
    open: () => void (open = true),
    stop: () =>
      new Promise<void>((resolve) => {
        open = false
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

export type FleetSite = Awaited<ReturnType<typeof fleetSite>>

/**
 * A gateway's fleet side: its change log, its bridge, every change it recorded (rendered as
 * HQ parses it) and its open orders. Changes are recorded as the gateway records them; the
 * bridge publishes them (and replays what HQ asks for) on its own.
 */
export async function fleetSite(siteId: string, brokerUrl: string, fleetOptions: Record<string, unknown> = {}) {
  const clock = new SystemClock()
  const fleet = await FleetService.open({
    config: fleetConfigSchema.parse({
      enabled: true,
      brokerUrl,
      siteId,
      topicPrefix: prefix,
      reconnectMs: 50,
      maxReconnectMs: 200,
      statusIntervalMs: 1000,
      ...fleetOptions,
    }),
    store: new Store(),
    identity: { deviceId: `TG-${siteId}`, version: '0.1.0', startedAt: Date.now() },
    clock,
    log: memoryLogger('error').log,
    timezone: () => 'UTC',
  })
  const changes = await ChangeLog.open(await new Store().collection('seq'), clock, { sinks: [fleet.sink], blockSize: 7 })
  const recorded: SiteMessage[] = []
  changes.on('recorded', (change) => {
    for (const message of fleetMessages(change, { siteId, timezone: 'UTC' })) {
      const parsed = parseSiteMessage(prefix, `${prefix}/${siteId}/${message.channel}`, message.payload)
      if (!parsed.ok) throw new Error(parsed.reason)
      recorded.push(parsed.message)
    }
  })
  const open = new Map<string, ActiveOrder>()
  let name = 0
  const site = {
    siteId,
    fleet,
    recorded,
    /** The site's open orders. */
    open,
    /** A new order waiting for its table. */
    async create(at = Date.now()): Promise<ActiveOrder> {
      const order: ActiveOrder = {
        uuid: randomUUID(),
        name: ++name,
        orderType: 'ON_PREMISE',
        state: 'started',
        locationName: null,
        created: at,
        stateChanged: at,
        located: null,
        tracker: null,
        hadTracker: false,
        paged: false,
        tracking: false,
        pagedAt: null,
      }
      open.set(order.uuid, order)
      await changes.record('ORDER_CREATED', order)
      return order
    },
    async locate(uuid: string, table: number, at = Date.now()): Promise<void> {
      const order = { ...open.get(uuid)!, state: 'located' as const, locationName: table, located: at, stateChanged: at }
      open.set(uuid, order)
      await changes.record('ORDER_MODIFIED', order)
    },
    async clear(uuid: string, at = Date.now()): Promise<void> {
      const order = { ...open.get(uuid)!, state: 'cleared' as const, stateChanged: at }
      open.delete(uuid)
      await changes.record('ORDER_CLEARED', order)
    },
    /** Whole orders: created a minute ago, put on a table, cleared. */
    async orders(count: number): Promise<void> {
      for (let i = 0; i < count; i++) {
        const at = Date.now() - 60_000
        const order = await site.create(at)
        await site.locate(order.uuid, 1 + (order.name % 9), at + 30_000)
        await site.clear(order.uuid, at + 50_000)
      }
    },
  }
  return site
}

/** The rows one orderly apply of these messages leaves (in a fresh database of the server). */
export async function orderlyRows(server: PostgresServer, messages: SiteMessage[]) {
  const reference = await freshDatabase(server)
  try {
    await new Partitions().ensure(
      reference.db,
      messages.flatMap((m) => (m.kind === 'history' ? [Date.parse(m.orderCleared)] : [])),
    )
    await reference.db.transaction((tx) => applyBatch(tx, messages, { timezoneOf: () => 'UTC', targetSeconds: 600 }))
    return await snapshot(reference.db)
  } finally {
    await reference.db.close()
  }
}

// A small seeded generator (mulberry32), so a failing run can be repeated from its seed.
export { seeded } from '../../helpers/seeded.ts'
