// Two HQ instances as real processes (`gateway hq`), one killed with SIGKILL in the middle of
// a batch: its transaction is open in PostgreSQL (held there by a lock this test takes) when
// it dies. Restarted, it gets from the broker what it had not acknowledged; in the end the
// rows are exactly those of one orderly apply: nothing lost, nothing doubled.
import t from 'tap'
import { SimulatedSite, type SiteMessageOut } from '../../../bench/hq-sites.ts'
import { applyBatch } from '../../../lib/hq/apply.ts'
import { parseSiteMessage, type SiteMessage } from '../../../lib/hq/messages.ts'
import { Partitions } from '../../../lib/hq/schema.ts'
import { openDatabase } from '../../../lib/store/postgres.ts'
import { startPostgres } from '../../helpers/postgres.ts'
import { until, untilProgress } from '../../helpers/until.ts'
import { startBroker } from '../../lib/fleet/mosquitto.ts'
import { freshDatabase, prefix, publishAll, publisher, snapshot } from '../../lib/hq/fixtures.ts'
import { brokerLines } from './fixtures.ts'
import { type HqProcess, killHqProcess, startHqProcess, writeHqConfig } from './stack.ts'

const pg = await startPostgres({ fast: true })
t.teardown(() => pg.destroy())

t.test('SIGKILL of an instance mid-batch: nothing lost, nothing doubled', async (t) => {
  const broker = await startBroker({ dir: t.testdir(), lines: brokerLines })
  t.teardown(() => broker.stop())
  const { url, db } = await freshDatabase(pg)
  const reference = await freshDatabase(pg)
  t.teardown(() => Promise.all([db.close(), reference.db.close()]))
  const dir = t.testdir()
  const configOf = (instanceId: string) => writeHqConfig(dir, { postgresUrl: url, brokerUrl: broker.url, instanceId, batchSize: 40 })
  const processes: HqProcess[] = []
  t.teardown(() => Promise.all(processes.map(killHqProcess)))
  const a = await startHqProcess(configOf('a'))
  processes.push(a)
  const b = await startHqProcess(configOf('b'))
  processes.push(b)

  // The figures table is locked: every batch stops inside its transaction, before COMMIT.
  const blocker = openDatabase(url, { max: 1 })
  t.teardown(() => blocker.close())
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  const holding = blocker.transaction(async (tx) => {
    await tx.query('LOCK TABLE hq_site_hours IN EXCLUSIVE MODE')
    await released
  })

  const sites = Array.from({ length: 12 }, (_, i) => new SimulatedSite(`site-${i}`, { prefix }))
  const messages: SiteMessageOut[] = []
  const base = Date.parse('2026-11-25T11:00:00Z')
  for (let i = 0; i < 25; i++) for (const site of sites) messages.push(...site.fullOrder(base + i * 60_000, 100 + i, 400))
  const client = await publisher(broker.url)
  t.teardown(() => client.endAsync(true))
  await publishAll(client, messages)

  // Both instances are inside a batch transaction, waiting for the lock.
  const waiting = async (app: string) =>
    (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`, [app])).rows[0]
      .n > 0
  await until(async () => (await waiting('hq-a')) && (await waiting('hq-b')), 'both instances in the middle of a batch')
  a.child.kill('SIGKILL')
  t.equal(await a.exited, null, 'a was killed')
  release()
  await holding
  // The killed instance's transaction is rolled back; b commits its own.
  await until(async () => !(await waiting('hq-b')), 'b goes on')
  const restarted = await startHqProcess(configOf('a'))
  processes.push(restarted)

  const parsed: SiteMessage[] = messages.map((m) => {
    const result = parseSiteMessage(prefix, m.topic, m.payload)
    if (!result.ok) throw new Error(result.reason)
    return result.message
  })
  await new Partitions().ensure(reference.db, [base])
  await reference.db.transaction((tx) => applyBatch(tx, parsed, { timezoneOf: () => 'UTC', targetSeconds: 600 }))
  const expected = await snapshot(reference.db)
  let stored = 0
  const count = async () => (stored = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM hq_history')).rows[0].n)
  await untilProgress(
    async () => (await count()) >= 300,
    () => stored,
    'every cleared order',
  )
  await until(async () => JSON.stringify(await snapshot(db)) === JSON.stringify(expected), 'the rows of one orderly apply').catch(() => undefined)
  const got = await snapshot(db)
  t.equal(got.history.length, 300, 'every cleared order once')
  t.same(got, expected, 'same rows (and same hour figures: nothing counted twice)')
})
