// Fills a data dir's history.sqlite with N order summaries spread over five years ending now,
// for `npm run bench` (GET /api/v2/orders over 1M summaries). Same approach and shape as
// bench/history.ts (which measures history queries one at a time): secondary indexes are
// dropped for the bulk insert and rebuilt by reopening the store.
import { randomUUID } from 'node:crypto'
import path from 'node:path'
import { HistoryStore } from '../lib/history/store.ts'
import type { OrderSummary } from '../lib/orders/types.ts'

const day = 86_400_000

/** mulberry32: every run generates the same shape of data. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

export function generateHistory(dataDir: string, rows: number): { seconds: number } {
  const began = performance.now()
  const end = Date.now()
  const start = end - 5 * 365 * day
  const step = (end - start - 40 * 60_000) / rows
  const random = prng(42)
  const file = path.join(dataDir, 'history.sqlite')
  const store = new HistoryStore(file, { synchronous: 'NORMAL', cacheKiB: 256 * 1024 })
  const indexes = store.db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'summaries' AND sql IS NOT NULL")
    .all() as { name: string }[]
  for (const { name } of indexes) store.db.exec(`DROP INDEX ${name}`)
  const batch: OrderSummary[] = []
  for (let i = 0; i < rows; i++) {
    const orderStarted = Math.floor(start + i * step + random() * step)
    const located = random() < 0.9
    batch.push({
      uuid: randomUUID(),
      name: 1 + (i % 200),
      orderType: random() < 0.5 ? 'TO_GO' : 'ON_PREMISE',
      locationName: located ? 1 + Math.floor(random() * 40) : null,
      orderStarted,
      orderLocated: located ? orderStarted + 60_000 + Math.floor(random() * 240_000) : null,
      orderCleared: orderStarted + 360_000 + Math.floor(random() * 1_200_000),
    })
    if (batch.length === 20_000) {
      store.insertMany(batch)
      batch.length = 0
    }
  }
  store.insertMany(batch)
  store.close()
  const indexed = new HistoryStore(file, { synchronous: 'NORMAL', cacheKiB: 256 * 1024 })
  indexed.db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
  indexed.close()
  return { seconds: Number(((performance.now() - began) / 1000).toFixed(1)) }
}
