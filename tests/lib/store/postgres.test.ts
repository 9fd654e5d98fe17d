// lib/store/postgres.ts against a real PostgreSQL: a session left inside a transaction (its
// holder stopped between two statements) is ended after idleInTransactionTimeoutMs, so the
// locks it held stop blocking others; its transaction fails, nothing of it committed.
import t from 'tap'
import { openDatabase } from '../../../lib/store/postgres.ts'
import { startPostgres } from '../../helpers/postgres.ts'

const pg = await startPostgres({ fast: true })
t.teardown(() => pg.destroy())

t.test('a transaction stalled between statements gives up its locks after idleInTransactionTimeoutMs', async (t) => {
  const url = await pg.createDatabase('store_idle_tx')
  const db = openDatabase(url, { max: 2, idleInTransactionTimeoutMs: 300 })
  const other = openDatabase(url, { max: 1 })
  t.teardown(() => Promise.all([db.close(), other.close()]))
  await other.query('CREATE TABLE counts (id int PRIMARY KEY, n int NOT NULL)')
  await other.query('INSERT INTO counts VALUES (1, 0)')
  let resume!: () => void
  const resumed = new Promise<void>((resolve) => (resume = resolve))
  let locked!: () => void
  const holding = new Promise<void>((resolve) => (locked = resolve))
  const stalled = db.transaction(async (tx) => {
    await tx.query('UPDATE counts SET n = n + 100 WHERE id = 1')
    locked()
    await resumed // stalled with the row locked, until the other update went through
    await tx.query('SELECT 1')
  })
  stalled.catch(() => undefined)
  await holding
  // Without the timeout this update waits for the stalled transaction for ever.
  await other.query('UPDATE counts SET n = n + 1 WHERE id = 1')
  resume()
  await t.rejects(stalled, 'the stalled transaction fails')
  t.same((await other.query<{ n: number }>('SELECT n FROM counts')).rows, [{ n: 1 }], 'nothing of it committed')
  t.same((await db.query<{ ok: number }>('SELECT 1 AS ok')).rows, [{ ok: 1 }], 'the pool goes on with a fresh session')
})
