// npm run bench:hq — headquarters at a chain's scale, on this machine, with real engines.
//
// 1. PostgreSQL (durable defaults: fsync on), Mosquitto (deploy/mosquitto's queue and
//    in-flight settings), two HQ instances as real processes (`gateway hq`).
// 2. SITES (1,000) simulated restaurants, one MQTT connection each, publish RATE changes/s
//    in all for SECONDS, rendered by the gateway's own fleet renderer (bench/hq-load.ts).
//    Meanwhile a probe creates an order at a probe site every 250 ms and polls the HQ API
//    (GET /api/hq/sites/:site/orders) until it shows: lag publish → visible, p50/p99.
//    Ingest: changes applied per second over the run (sum of the sites' last applied seq).
// 3. History at scale: HISTORY_ROWS (10,000,000) cleared orders over 60 days for the
//    sites, with their hour figures; PostgreSQL bytes per million orders; chain-wide "today"
//    statistics (GET /api/hq/statistics) and the board's site list (GET /api/hq/sites),
//    p50/p99 one request at a time.
// Prints the figures and writes bench/results/hq.json. Environment: SITES, RATE, SECONDS,
// HISTORY_ROWS (0: ingest only, into bench/results/hq-ingest.json), SAMPLES, BACKLOG (a
// site back after days publishes this many changes from the start, as its bridge catches
// up; the probe's lag while it is caught up is reported apart), HQ_INSTANCES (2, at most 4)
// and HQ_SHARED=1 (the instances on one shared subscription instead of one each).
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { connect } from 'mqtt'
import { HqTokens } from '../lib/hq/tokens.ts'
import { Partitions } from '../lib/hq/schema.ts'
import { openDatabase } from '../lib/store/postgres.ts'
import { startPostgres } from '../tests/helpers/postgres.ts'
import { startBroker } from '../tests/lib/fleet/mosquitto.ts'
import { SimulatedSite } from './hq-sites.ts'

const root = path.resolve(import.meta.dirname, '..')
const sites = Number(process.env.SITES ?? 1000)
const rate = Number(process.env.RATE ?? 6000)
const seconds = Number(process.env.SECONDS ?? 60)
const historyRows = Number(process.env.HISTORY_ROWS ?? 10_000_000)
const samples = Number(process.env.SAMPLES ?? 300)
const backlog = Number(process.env.BACKLOG ?? 0)
/** HQ_INSTANCES (2) instances, each on its own subscription unless HQ_SHARED=1 (a shared one): what the default costs. */
const instanceIds = ['a', 'b', 'c', 'd'].slice(0, Math.max(1, Math.min(4, Number(process.env.HQ_INSTANCES ?? 2))))
const sharedSubscription = process.env.HQ_SHARED === '1'
const prefix = 'chain'
const targets = { changesPerSecond: 5000, lagP99Ms: 1000, todayP99Ms: 50 }

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted.length ? Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! * 10) / 10 : NaN
}
/** The machine as the figures were taken: shared machines show it in the load average. */
const machineNow = () => ({
  cpus: os.cpus().length,
  model: os.cpus()[0]?.model,
  loadavg: os.loadavg().map((n) => Math.round(n * 100) / 100),
  memoryGB: Math.round(os.totalmem() / 1e9),
})
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const log = (line: string) => process.stderr.write(`${line}\n`)

const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-hq-'))
const children: ChildProcess[] = []
const pg = await startPostgres({ settings: { shared_buffers: "'256MB'", max_wal_size: "'2GB'" } })
const broker = await startBroker({ dir, lines: ['max_inflight_messages 1000', 'max_queued_messages 0'] })
let cleaning: Promise<void> | undefined
const cleanup = () =>
  (cleaning ??= (async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGTERM')
    await broker.stop()
    await pg.destroy()
    rmSync(dir, { recursive: true, force: true })
  })())
// Interrupted (Ctrl-C, a timeout's SIGTERM): PostgreSQL, Mosquitto and the HQ processes go too.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void cleanup().finally(() => process.exit(130)))

try {
  const url = await pg.createDatabase('hq')
  const db = openDatabase(url, { max: 4 })

  // HQ instances (two by default), as an operator runs them.
  const ports: number[] = []
  for (const instanceId of instanceIds) {
    const configFile = path.join(dir, `hq-${instanceId}.json`)
    writeFileSync(
      configFile,
      JSON.stringify({
        port: 0,
        host: '127.0.0.1',
        postgresUrl: url,
        broker: { url: broker.url },
        topicPrefix: prefix,
        instanceId,
        batchSize: 500,
        batchWaitMs: 20,
        shared: sharedSubscription,
      }),
    )
    const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', path.join(root, 'runtime/cli.ts'), 'hq', '--config', configFile], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    children.push(child)
    ports.push(
      await new Promise<number>((resolve, reject) => {
        createInterface({ input: child.stdout! }).on('line', (line) => {
          const match = /"port":(\d+).*"hq listening"/.exec(line)
          if (match) resolve(Number(match[1]))
        })
        child.once('exit', (code) => reject(new Error(`hq ${instanceId} exited (${code})`)))
      }),
    )
  }
  const { token } = await new HqTokens(db).create('bench')
  const api = async (port: number, route: string) => {
    const response = await fetch(`http://127.0.0.1:${port}${route}`, { headers: { authorization: `Bearer ${token}` } })
    if (!response.ok) throw new Error(`${route}: ${response.status}`)
    return (await response.json()) as any
  }
  log(`hq instances on ${ports.join(', ')}; starting ${sites} sites`)

  // The load, in its own process.
  const load = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', path.join(root, 'bench/hq-load.ts')], {
    env: {
      ...process.env,
      BROKER_URL: broker.url,
      SITES: String(sites),
      RATE: String(rate),
      SECONDS: String(seconds),
      PREFIX: prefix,
      BACKLOG: String(backlog),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  children.push(load)
  const loadLines = createInterface({ input: load.stdout! })
  const loadEvents: any[] = []
  loadLines.on('line', (line) => loadEvents.push(JSON.parse(line)))
  while (!loadEvents.some((e) => e.ready)) await sleep(100)
  log(`sites connected; publishing ${rate} changes/s for ${seconds} s`)

  // The probe: one order at a time, publish → visible in the API.
  const probeClient = connect(broker.url, { clientId: 'probe', protocolVersion: 4 })
  await new Promise((resolve) => probeClient.once('connect', resolve))
  const probes = Array.from({ length: 10 }, (_, i) => new SimulatedSite(`probe-${i}`, { prefix }))
  const lags: number[] = []
  /** When each lag sample was taken, and whether the returning site was still being caught up then. */
  const lagTimes: number[] = []
  let backCaughtUpAt = 0
  const backTimer = backlog
    ? setInterval(async () => {
        if (backCaughtUpAt) return
        const { rows } = await db.query<{ n: number }>(`SELECT last_seq AS n FROM hq_sites WHERE site_id = 'site-back'`)
        if ((rows[0]?.n ?? 0) >= backlog) backCaughtUpAt = Date.now()
      }, 100)
    : undefined
  const progress: { at: number; applied: number }[] = []
  const appliedNow = async () =>
    (await db.query<{ n: number }>(`SELECT COALESCE(sum(last_seq), 0) AS n FROM hq_sites WHERE site_id LIKE 'site-%' AND site_id <> 'site-back'`)).rows[0]!.n
  const runStarted = Date.now()
  let probing = true
  const progressTimer = setInterval(async () => progress.push({ at: Date.now(), applied: await appliedNow() }), 1000)
  const probeLoop = (async () => {
    for (let i = 0; probing; i++) {
      const site = probes[i % probes.length]!
      const { order, messages } = site.create(Date.now())
      const published = performance.now()
      for (const m of messages) probeClient.publish(m.topic, m.payload, { qos: 1 })
      const port = ports[i % ports.length]!
      for (;;) {
        const { orders } = await api(port, `/api/hq/sites/${site.siteId}/orders`).catch(() => ({ orders: [] }))
        if (orders.some((o: any) => o.uuid === order.uuid)) break
        if (performance.now() - published > 30_000) throw new Error('probe not visible after 30 s')
        await sleep(10)
      }
      lags.push(performance.now() - published)
      lagTimes.push(Date.now())
      await sleep(250)
    }
  })()
  while (!loadEvents.some((e) => e.done)) await sleep(200)
  const published = loadEvents.find((e) => e.done)
  log(`load done: ${JSON.stringify(published)}`)
  const publishEnded = Date.now()
  while ((await appliedNow()) < published.totalSeq) {
    if (Date.now() - publishEnded > 120_000) throw new Error('HQ did not catch up within 120 s')
    await sleep(100)
  }
  const caughtUp = Date.now()
  probing = false
  await probeLoop
  clearInterval(progressTimer)
  while (backlog && !backCaughtUpAt) await sleep(100)
  clearInterval(backTimer)
  probeClient.end()
  // Sustained: the middle of the run (the first 10 s warm up the sites' connections and HQ).
  const window = progress.filter((p) => p.at >= runStarted + 10_000 && p.at <= publishEnded)
  const sustained = window.length >= 2 ? ((window.at(-1)!.applied - window[0]!.applied) / (window.at(-1)!.at - window[0]!.at)) * 1000 : NaN
  const ingest = {
    sites,
    offeredChangesPerSecond: rate,
    seconds,
    changesPublished: published.changes,
    messagesPublished: published.messages,
    sustainedChangesPerSecond: Math.round(sustained),
    overallChangesPerSecond: Math.round(published.totalSeq / ((caughtUp - runStarted) / 1000)),
    catchUpAfterLastPublishMs: caughtUp - publishEnded,
    lagMs: { samples: lags.length, p50: quantile(lags, 0.5), p99: quantile(lags, 0.99), max: quantile(lags, 1) },
    ...(backlog
      ? (() => {
          const during = lags.filter((_, i) => lagTimes[i]! <= backCaughtUpAt)
          const event = loadEvents.find((e) => e.backlogPublished)
          return {
            backlog: {
              changes: backlog,
              publishedInMs: event?.ms,
              caughtUpAfterStartMs: backCaughtUpAt - runStarted,
              othersLagWhileCatchingUpMs: { samples: during.length, p50: quantile(during, 0.5), p99: quantile(during, 0.99), max: quantile(during, 1) },
            },
          }
        })()
      : {}),
  }
  log(`ingest: ${JSON.stringify(ingest)}`)

  if (historyRows === 0) {
    // Ingest only (HISTORY_ROWS=0): bench/results/hq-ingest.json.
    const result = {
      when: new Date().toISOString(),
      machine: machineNow(),
      hq: { instances: instanceIds.length, sharedSubscription },
      targets,
      ingest,
      pass: { ingest: ingest.sustainedChangesPerSecond >= targets.changesPerSecond, lag: ingest.lagMs.p99 < targets.lagP99Ms },
    }
    mkdirSync(path.join(root, 'bench/results'), { recursive: true })
    writeFileSync(path.join(root, `bench/results/${backlog ? 'hq-backlog' : 'hq-ingest'}.json`), `${JSON.stringify(result, null, 2)}\n`)
    console.log(JSON.stringify(result, null, 2))
    await db.close()
    process.exitCode = 0
  } else {
    // History at scale: 60 days ending now, spread over the sites, with their hour figures.
    log(`generating ${historyRows.toLocaleString('en-US')} history rows`)
    const days = 60
    const now = Date.now()
    const firstDay = now - days * 86_400_000
    const partitions = new Partitions()
    const monthStarts: number[] = []
    for (let t = firstDay; t <= now + 86_400_000; t += 86_400_000) monthStarts.push(t)
    await partitions.ensure(db, monthStarts)
    const chunk = 1_000_000
    const generated = performance.now()
    for (let offset = 0; offset < historyRows; offset += chunk) {
      const count = Math.min(chunk, historyRows - offset)
      // Order i: site i % sites, started at an even spread over the 60 days (up to now),
      // 2-14 minutes to table, cleared 20-60 minutes after it started.
      await db.query(
        `INSERT INTO hq_history (site_id, uuid, seq, name, order_type, location_name, order_started, order_located, order_cleared, local_day, local_hour)
       SELECT 'site-' || lpad((i % $3)::text, 4, '0'), 'gen-' || i, 1000000 + i, (i % 999 + 1)::text, 'ON_PREMISE', (i % 40 + 1)::text,
              s, s + make_interval(secs => 120 + (i * 7919) % 720), s + make_interval(secs => 1200 + (i * 104729) % 2400),
              (s AT TIME ZONE 'UTC')::date, EXTRACT(HOUR FROM s AT TIME ZONE 'UTC')::smallint
       FROM (SELECT i, to_timestamp($4::double precision + (i::double precision / $5) * $6) AS s FROM generate_series($1::bigint, $2::bigint) AS i) g`,
        [offset, offset + count - 1, sites, firstDay / 1000, historyRows, (now - firstDay) / 1000],
      )
      log(`  ${(offset + count).toLocaleString('en-US')} rows (${Math.round((performance.now() - generated) / 1000)} s)`)
    }
    // Their figures, as ingest would have added them: per site and hour, per site and day,
    // per chain hour (one aggregation of the generated rows, added to each table).
    await db.transaction(async (tx) => {
      await tx.query(
        `CREATE TEMP TABLE generated ON COMMIT DROP AS
       SELECT local_day AS day, site_id, local_hour AS hour, count(*)::int AS orders, count(order_located)::int AS located,
              sum(EXTRACT(EPOCH FROM order_located - order_started))::double precision AS to_table_seconds,
              (count(*) FILTER (WHERE order_located - order_started > interval '600 seconds'))::int AS late
       FROM hq_history WHERE uuid LIKE 'gen-%' GROUP BY local_day, site_id, local_hour`,
      )
      const add = (table: string, keys: string) =>
        tx.query(
          `INSERT INTO ${table} AS f (${keys}, orders, located, to_table_seconds, late)
         SELECT ${keys}, sum(orders), sum(located), sum(to_table_seconds), sum(late) FROM generated GROUP BY ${keys}
         ON CONFLICT (${keys}) DO UPDATE SET orders = f.orders + excluded.orders, located = f.located + excluded.located,
           to_table_seconds = f.to_table_seconds + excluded.to_table_seconds, late = f.late + excluded.late`,
        )
      await add('hq_site_hours', 'day, site_id, hour')
      await add('hq_site_days', 'day, site_id')
      await add('hq_chain_hours', 'day, hour')
    })
    await db.query('VACUUM ANALYZE')
    const sizes = (
      await db.query<{ history: number; hours: number; live: number; sites: number; rows: number; hour_rows: number }>(
        `SELECT (SELECT sum(pg_total_relation_size(inhrelid)) FROM pg_inherits WHERE inhparent = 'hq_history'::regclass) AS history,
              pg_total_relation_size('hq_site_hours') + pg_total_relation_size('hq_site_days') + pg_total_relation_size('hq_chain_hours') AS hours, pg_total_relation_size('hq_live_orders') AS live,
              pg_total_relation_size('hq_sites') AS sites,
              (SELECT count(*) FROM hq_history) AS rows, (SELECT count(*) FROM hq_site_hours) AS hour_rows`,
      )
    ).rows[0]!
    const storage = {
      historyRows: sizes.rows,
      hourRows: sizes.hour_rows,
      historyBytes: sizes.history,
      hourFigureBytes: sizes.hours,
      bytesPerMillionOrders: Math.round(((sizes.history + sizes.hours) / sizes.rows) * 1e6),
      generateSeconds: Math.round((performance.now() - generated) / 1000),
    }
    log(`storage: ${JSON.stringify(storage)}`)

    const time = async (route: string) => {
      const ms: number[] = []
      for (let i = 0; i < samples + 20; i++) {
        const started = performance.now()
        await api(ports[i % ports.length]!, route)
        if (i >= 20) ms.push(performance.now() - started)
      }
      return { samples: ms.length, p50: quantile(ms, 0.5), p99: quantile(ms, 0.99) }
    }
    const today = await api(ports[0]!, '/api/hq/statistics?period=today')
    const queries = {
      todayOrders: today.statistics.orders,
      chainToday: await time('/api/hq/statistics?period=today'),
      chainWeek: await time('/api/hq/statistics?period=week'),
      siteToday: await time('/api/hq/statistics?period=today&site=site-0007'),
      boardSites: await time('/api/hq/sites'),
    }
    log(`queries: ${JSON.stringify(queries)}`)

    const result = {
      when: new Date().toISOString(),
      machine: machineNow(),
      hq: { instances: instanceIds.length, sharedSubscription },
      targets,
      ingest,
      storage,
      queries,
      pass: {
        ingest: ingest.sustainedChangesPerSecond >= targets.changesPerSecond,
        lag: ingest.lagMs.p99 < targets.lagP99Ms,
        today: queries.chainToday.p99 < targets.todayP99Ms,
      },
    }
    mkdirSync(path.join(root, 'bench/results'), { recursive: true })
    writeFileSync(path.join(root, 'bench/results/hq.json'), `${JSON.stringify(result, null, 2)}\n`)
    console.log(JSON.stringify(result, null, 2))
    await db.close()
  }
} finally {
  await cleanup()
}
