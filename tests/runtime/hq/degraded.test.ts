// Correct while degraded: two HQ instances as real processes (`gateway hq`), a site publishing
// a bounded, seeded load of changes through a real Mosquitto, a real PostgreSQL. One instance
// is frozen (SIGSTOP: its connection stays open, it acknowledges nothing), woken, then killed
// (SIGKILL). Throughout, what the other instance's API shows of the site's open orders is
// never more than 10 s behind the site; the frozen instance raises an 'instance' alert.
// In npm test it is frozen 15 s (about 35 s of load); DEGRADED_SECONDS=300 (npm run
// test:degraded) freezes it for the 5 minutes of issue 42. And an instance frozen inside its
// batch transaction (its row locks held): PostgreSQL ends its session, the other goes on.
import t from 'tap'
import { SimulatedSite } from '../../../bench/hq-sites.ts'
import { HqTokens } from '../../../lib/hq/tokens.ts'
import { startPostgres } from '../../helpers/postgres.ts'
import { until } from '../../helpers/until.ts'
import { startBroker } from '../../lib/fleet/mosquitto.ts'
import { freshDatabase, prefix, publisher } from '../../lib/hq/fixtures.ts'
import { brokerLines, hqApi } from './fixtures.ts'
import { fleetSite, type HqProcess, killHqProcess, seeded, startHqProcess, writeHqConfig } from './stack.ts'

const pg = await startPostgres({ fast: true })
t.teardown(() => pg.destroy())

// How long the instance stays frozen: DEGRADED_SECONDS (default 15, npm run test:degraded 300).
const frozenSeconds = Number(process.env.DEGRADED_SECONDS ?? 15)
if (!(frozenSeconds >= 10)) throw new Error('DEGRADED_SECONDS must be a number of seconds, at least 10')

t.test('one of two instances frozen, then killed, under load: the other shows the site within 10 s throughout', async (t) => {
  const seed = Number(process.env.HQ_DEGRADED_SEED ?? Date.now() % 1_000_000)
  t.comment(`seed ${seed} (HQ_DEGRADED_SEED=${seed} repeats it)`)
  const next = seeded(seed)
  const broker = await startBroker({ dir: t.testdir(), lines: brokerLines })
  t.teardown(() => broker.stop())
  const { url, db } = await freshDatabase(pg)
  t.teardown(() => db.close())
  const { token } = await new HqTokens(db).create('test')
  const dir = t.testdir()
  // As installed (no `shared` key): the default mechanism is what is tested.
  const configOf = (instanceId: string) =>
    writeHqConfig(dir, { postgresUrl: url, brokerUrl: broker.url, instanceId, alerts: { instanceSilentSeconds: 3, checkIntervalMs: 500 } })
  const processes: HqProcess[] = []
  t.teardown(() => Promise.all(processes.map(killHqProcess)))
  const a = await startHqProcess(configOf('a'))
  processes.push(a)
  const b = await startHqProcess(configOf('b'))
  processes.push(b)
  const api = hqApi(`http://127.0.0.1:${a.port}`, token)

  // The site: one change every 100 ms, at most 20 orders open; what it has open after each
  // change the broker acknowledged, and when.
  const site = new SimulatedSite('site-1', { prefix })
  const client = await publisher(broker.url)
  t.teardown(() => client.endAsync(true))
  await client.publishAsync(`${prefix}/site-1/status`, site.status(true).payload, { qos: 1, retain: true })
  const truth: { at: number; open: string }[] = [{ at: Date.now(), open: '' }]
  const openNow = () => [...site.open.keys()].sort().join(',')
  let running = true
  const load = (async () => {
    while (running) {
      const open = [...site.open.values()]
      const roll = next()
      const messages =
        open.length === 0 || (open.length < 20 && roll < 0.4)
          ? site.create().messages
          : roll < 0.7 && open.some((o) => o.state === 'started')
            ? site.locate(open.find((o) => o.state === 'started')!.uuid, 1 + Math.floor(next() * 40))
            : site.clear(open[Math.floor(next() * open.length)]!.uuid)
      for (const m of messages) await client.publishAsync(m.topic, m.payload, { qos: 1 })
      truth.push({ at: Date.now(), open: openNow() })
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  })()

  // How far behind the site HQ's view is: 0 when it shows the latest state; else the time
  // since the site left the newest state HQ shows (Infinity: none it had lately).
  let worst = 0
  let checks = 0
  const lag = async () => {
    const asked = Date.now()
    const { status, body } = await api('/api/hq/sites/site-1/orders')
    const shown =
      status === 200
        ? (body.orders as { uuid: string }[])
            .map((o) => o.uuid)
            .sort()
            .join(',')
        : null
    for (let k = truth.length - 1; k >= 0; k--) {
      if (truth[k]!.open === shown) return k === truth.length - 1 ? 0 : Math.max(0, asked - truth[k + 1]!.at)
    }
    return Infinity
  }
  const watch = async (ms: number, label: string) => {
    const end = Date.now() + ms
    while (Date.now() < end) {
      const behind = await lag()
      checks++
      if (behind > worst) worst = behind
      if (behind > 10_000) t.fail(`${label}: HQ is ${behind} ms behind the site`)
      if (behind > 10_000) return
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
  }

  await until(async () => (await lag()) === 0, 'HQ caught up with the site', 30_000)
  await watch(3000, 'both running')
  b.child.kill('SIGSTOP')
  const frozenAt = Date.now()
  await watch(6000, 'b frozen')
  const alerts = async () => ((await api('/api/hq/alerts')).body.alerts as { siteId: string; kind: string }[]).filter((x) => x.kind === 'instance')
  await until(async () => (await alerts()).some((x) => x.siteId === 'hq-b'), 'an alert that instance b stopped acknowledging', 30_000)
  await watch(Math.max(1000, frozenSeconds * 1000 - (Date.now() - frozenAt)), 'b frozen, alerted')
  t.comment(`b was frozen ${((Date.now() - frozenAt) / 1000).toFixed(0)} s`)
  b.child.kill('SIGCONT')
  await watch(3000, 'b woken')
  await until(async () => (await alerts()).length === 0, 'the alert cleared once b acknowledges again', 30_000)
  b.child.kill('SIGKILL')
  await b.exited
  await watch(10_000, 'b killed')
  running = false
  await load
  await until(async () => (await lag()) === 0, "HQ shows the site's final state", 30_000)
  t.ok(checks > 20, `checked ${checks} times`)
  t.ok(worst <= 10_000, `HQ never more than 10 s behind the site (worst ${worst} ms over ${truth.length - 1} changes)`)
})

t.test('an instance frozen inside its batch transaction does not hold the others up', async (t) => {
  const broker = await startBroker({ dir: t.testdir(), lines: brokerLines })
  t.teardown(() => broker.stop())
  const { url, db } = await freshDatabase(pg)
  t.teardown(() => db.close())
  const dir = t.testdir()
  const processes: HqProcess[] = []
  t.teardown(() => Promise.all(processes.map(killHqProcess)))
  for (const instanceId of ['a', 'b']) processes.push(await startHqProcess(writeHqConfig(dir, { postgresUrl: url, brokerUrl: broker.url, instanceId })))
  const b = processes[1]!
  const site = await fleetSite('busy', broker.url)
  site.fleet.start()
  t.teardown(() => site.fleet.stop())
  let running = true
  const load = (async () => {
    while (running) {
      await site.clear((await site.create()).uuid)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  })()
  t.teardown(async () => {
    running = false
    await load
  })
  const applied = async () => Number((await db.query<{ seq: string }>(`SELECT last_seq AS seq FROM hq_sites WHERE site_id = 'busy'`)).rows[0]?.seq ?? 0)
  const inTransaction = async () =>
    (await db.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = 'hq-b' AND state = 'idle in transaction'`)).rowCount > 0
  // Freeze b until it is caught between two statements of a batch (its locks held).
  await until(async () => {
    b.child.kill('SIGSTOP')
    await new Promise((resolve) => setTimeout(resolve, 50))
    if (await inTransaction()) return true
    b.child.kill('SIGCONT')
    await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 100))
    return false
  }, 'b frozen inside a transaction')
  // Without PostgreSQL ending b's session, a waits on b's locks for as long as b is frozen.
  await until(async () => !(await inTransaction()), "PostgreSQL ends the frozen instance's session")
  const before = await applied()
  await until(async () => (await applied()) >= before + 30, 'a applies on while b is frozen')
  b.child.kill('SIGCONT')
  running = false
  await load
  await until(async () => (await applied()) === site.fleet.status().lastPublishedSeq, 'everything applied')
  t.pass('b woken, every change applied')
})
