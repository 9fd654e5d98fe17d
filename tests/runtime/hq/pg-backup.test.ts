// docs/hq.md's PostgreSQL backup and restore, as written: pg_dump in the custom format of a
// live HQ database (partitioned history, hour figures, tokens, alerts), pg_restore into an
// empty database, and an HQ started on the restored one finds everything as it was.
import { execFileSync } from 'node:child_process'
import path from 'node:path'
import t from 'tap'
import { SimulatedSite } from '../../../bench/hq-sites.ts'
import { applyBatch, clearedInstants } from '../../../lib/hq/apply.ts'
import { evaluateAlerts, openAlerts } from '../../../lib/hq/alerts.ts'
import { hqConfigSchema } from '../../../lib/hq/config.ts'
import { parseSiteMessage, type SiteMessage } from '../../../lib/hq/messages.ts'
import { ensureSchema, Partitions } from '../../../lib/hq/schema.ts'
import { HqTokens } from '../../../lib/hq/tokens.ts'
import { openDatabase } from '../../../lib/store/postgres.ts'
import { startPostgres } from '../../helpers/postgres.ts'
import { freshDatabase, prefix, snapshot } from '../../lib/hq/fixtures.ts'

const pg = await startPostgres({ fast: true })
t.teardown(() => pg.destroy())

t.test('pg_dump -Fc then pg_restore into an empty database: the chain as it was', async (t) => {
  const { url, db } = await freshDatabase(pg)
  t.teardown(() => db.close())
  const now = Date.now()
  const paris = new SimulatedSite('paris-11', { prefix, startedAt: now - 3_600_000 })
  const lyon = new SimulatedSite('lyon-2', { prefix, startedAt: now - 3_600_000 })
  // Orders in this month and in the last (two history partitions), one open, one site offline.
  const raw = [
    paris.status(true),
    ...paris.fullOrder(now - 40 * 86_400_000, 120, 300),
    ...paris.fullOrder(now - 1_800_000, 240, 300),
    ...paris.create(now - 600_000).messages,
    lyon.status(false, { reason: 'stopped', at: now - 3_600_000 }),
  ]
  const messages: SiteMessage[] = raw.map((m) => {
    const parsed = parseSiteMessage(prefix, m.topic, m.payload)
    if (!parsed.ok) throw new Error(parsed.reason)
    return parsed.message
  })
  await new Partitions().ensure(db, clearedInstants(messages))
  await db.transaction((tx) => applyBatch(tx, messages, { timezoneOf: () => 'UTC', targetSeconds: 300 }))
  const { token } = await new HqTokens(db).create('ops')
  await db.query(`UPDATE hq_sites SET status_received_at = now() - interval '1 hour' WHERE site_id = 'lyon-2'`)
  const alerts = hqConfigSchema.shape.alerts.parse({ offlineMinutes: 5 })
  await db.transaction((tx) => evaluateAlerts(tx, alerts))
  const before = { rows: await snapshot(db), alerts: await openAlerts(db) }
  t.equal(before.rows.history.length, 2, 'two orders in history')
  t.equal(before.alerts.length, 1, 'lyon offline')

  // As docs/hq.md says (there as the postgres user on the HQ machine).
  const dump = path.join(t.testdir(), 'hq.dump')
  const target = new URL(url)
  const connection = ['-h', '127.0.0.1', '-p', String(pg.port), '-U', 'postgres']
  execFileSync(pg.program('pg_dump'), [...connection, '-Fc', '-d', target.pathname.slice(1), '-f', dump])
  const restoredUrl = await pg.createDatabase(`hq_restored_${process.pid}`)
  execFileSync(pg.program('pg_restore'), [...connection, '--no-owner', '-d', new URL(restoredUrl).pathname.slice(1), dump])

  const restored = openDatabase(restoredUrl, { max: 2 })
  t.teardown(() => restored.close())
  await ensureSchema(restored) // what HQ runs at start: nothing to create, nothing refused
  t.same(await snapshot(restored), before.rows, 'live orders, history (both months), figures, sites')
  t.same(await openAlerts(restored), before.alerts, 'the open alert')
  t.match(await new HqTokens(restored).verify(token), { name: 'ops' }, 'the token still signs in')
  // The alert's id sequence came along: the next alert does not collide with the restored one.
  await restored.query(`UPDATE hq_sites SET status_received_at = now() - interval '1 hour', online = false WHERE site_id = 'paris-11'`)
  const next = await restored.transaction((tx) => evaluateAlerts(tx, alerts))
  t.equal(next.raised.length, 1)
  t.ok(next.raised[0]!.id > before.alerts[0]!.id, 'a new alert id')
})
