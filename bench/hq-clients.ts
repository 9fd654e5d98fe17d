// Which PostgreSQL client for headquarters: node-postgres (`pg`) or postgres.js, measured on
// what HQ does most, applying batches of 500 site messages (lib/hq/apply.ts) in one
// transaction each. `node bench/hq-clients.ts` (needs both packages installed; only `pg` is
// a dependency, the other is installed for the run: npm install --no-save postgres@3.4.9).
import { startPostgres } from '../tests/helpers/postgres.ts'
import { applyBatch } from '../lib/hq/apply.ts'
import { parseSiteMessage, type SiteMessage } from '../lib/hq/messages.ts'
import { ensureSchema, Partitions } from '../lib/hq/schema.ts'
import { openDatabase, type Database, type SqlClient } from '../lib/store/postgres.ts'
import { SimulatedSite } from './hq-sites.ts'

const batches = Number(process.env.BATCHES ?? 60)
const batchSize = 500

function workload(): SiteMessage[][] {
  const sites = Array.from({ length: 200 }, (_, i) => new SimulatedSite(`s${i}`, { prefix: 'chain' }))
  const all: SiteMessage[] = []
  let at = Date.parse('2026-11-25T11:00:00Z')
  while (all.length < batches * batchSize) {
    for (const site of sites) {
      for (const m of site.fullOrder(at, 200, 600)) {
        const parsed = parseSiteMessage('chain', m.topic, m.payload)
        if (parsed.ok) all.push(parsed.message)
      }
    }
    at += 60_000
  }
  return Array.from({ length: batches }, (_, i) => all.slice(i * batchSize, (i + 1) * batchSize))
}

async function postgresJs(url: string): Promise<Database & { end(): Promise<void> }> {
  const { default: postgres } = await import(['postgres'][0]!)
  const sql = postgres(url, { max: 4, onnotice: () => undefined })
  const wrap = (s: { unsafe(text: string, params?: unknown[]): Promise<unknown[] & { count: number }> }): SqlClient => ({
    query: async (text, params) => {
      const rows = await s.unsafe(text, params as never)
      return { rows: [...rows] as never[], rowCount: rows.count }
    },
  })
  return {
    ...wrap(sql),
    transaction: (fn) => sql.begin((tx: never) => fn(wrap(tx))),
    listen: () => Promise.reject(new Error('not measured')),
    close: () => sql.end(),
    end: () => sql.end(),
  }
}

async function measure(name: string, db: Database, work: SiteMessage[][]): Promise<number> {
  await ensureSchema(db)
  const partitions = new Partitions()
  await partitions.ensure(db, [Date.parse('2026-11-25T11:00:00Z'), Date.parse('2026-12-01T11:00:00Z')])
  const started = performance.now()
  for (const batch of work) await db.transaction((tx) => applyBatch(tx, batch, { timezoneOf: () => 'UTC', targetSeconds: 600 }))
  const seconds = (performance.now() - started) / 1000
  const rate = Math.round((batches * batchSize) / seconds)
  console.log(`${name}: ${rate} messages/s (${batches} batches of ${batchSize})`)
  await db.close()
  return rate
}

const server = await startPostgres()
try {
  const work = workload()
  for (const round of [1, 2]) {
    await measure(`pg round ${round}`, openDatabase(await server.createDatabase(`pg${round}`), { max: 4 }), work)
    await measure(`postgres.js round ${round}`, await postgresJs(await server.createDatabase(`pjs${round}`)), work)
  }
} finally {
  await server.destroy()
}
