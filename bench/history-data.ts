// Fills a data dir's history.sqlite with N order summaries spread over the five years before
// `end`, for `npm run bench:history` and `npm run bench` (GET /api/v2/orders over 1M
// summaries). Deterministic shape (seeded PRNG). Bulk load: the secondary indexes are
// dropped for the insert and rebuilt by reopening the store from its own schema (a sort per
// index, much faster than a million index inserts).
import { randomUUID } from 'node:crypto'
import path from 'node:path'
import { HistoryStore } from '../lib/history/store.ts'
import type { OrderSummary } from '../lib/orders/types.ts'

export const day = 86_400_000
export const historyYears = 5

/** mulberry32: a small deterministic PRNG, so every run generates the same shape of data. */
export function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

function* summaries(count: number, start: number, end: number): Generator<OrderSummary> {
  const random = prng(42)
  const step = (end - start - 40 * 60_000) / count
  for (let i = 0; i < count; i++) {
    const orderStarted = Math.floor(start + i * step + random() * step)
    const located = random() < 0.9
    yield {
      uuid: randomUUID(),
      name: 1 + (i % 200),
      orderType: random() < 0.5 ? 'TO_GO' : 'ON_PREMISE',
      locationName: located ? 1 + Math.floor(random() * 40) : null,
      orderStarted,
      orderLocated: located ? orderStarted + 60_000 + Math.floor(random() * 240_000) : null,
      orderCleared: orderStarted + 360_000 + Math.floor(random() * 1_200_000),
    }
  }
}

export interface GenerateOptions {
  /** The newest order's time (default now). */
  end?: number
  /** Called after every batch with the rows written so far. */
  onProgress?: (done: number) => void
}

export function generateHistory(dataDir: string, rows: number, options: GenerateOptions = {}): { seconds: number; rows: number } {
  const began = performance.now()
  const end = options.end ?? Date.now()
  const file = path.join(dataDir, 'history.sqlite')
  const store = new HistoryStore(file, { synchronous: 'NORMAL', cacheKiB: 256 * 1024 })
  const indexes = store.db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'summaries' AND sql IS NOT NULL").all() as {
    name: string
  }[]
  for (const { name } of indexes) store.db.exec(`DROP INDEX ${name}`)
  const batch: OrderSummary[] = []
  let done = 0
  for (const summary of summaries(rows, end - historyYears * 365 * day, end)) {
    batch.push(summary)
    if (batch.length === 20_000) {
      done += store.insertMany(batch)
      batch.length = 0
      options.onProgress?.(done)
    }
  }
  done += store.insertMany(batch)
  store.close()
  const indexed = new HistoryStore(file, { synchronous: 'NORMAL', cacheKiB: 256 * 1024 })
  indexed.db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
  indexed.close()
  return { seconds: Number(((performance.now() - began) / 1000).toFixed(1)), rows: done }
}
