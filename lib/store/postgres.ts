// PostgreSQL behind a small interface (headquarters' store): queries, a transaction, LISTEN.
// node-postgres (`pg`), chosen over postgres.js by measuring batch apply (docs/hq.md). Values
// come back as JSON-friendly types: bigint and numeric as numbers (our counts fit), dates as
// 'YYYY-MM-DD' text, timestamps as Date.
import pg from 'pg'

export interface SqlClient {
  query<Row = Record<string, unknown>>(text: string, params?: unknown[]): Promise<{ rows: Row[]; rowCount: number }>
}

export interface Database extends SqlClient {
  /** Runs fn in one transaction (BEGIN … COMMIT); any error rolls it back and is rethrown. */
  transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T>
  /** A dedicated connection LISTENing on channel; resolves once listening. */
  listen(channel: string, onNotify: (payload: string) => void, onError?: (error: Error) => void): Promise<{ close(): Promise<void> }>
  close(): Promise<void>
}

const parsers: Record<number, (value: string) => unknown> = {
  20: Number, // int8
  1700: Number, // numeric
  1082: (value) => value, // date
}

const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => parsers[oid] ?? pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
}

/** PostgreSQL error codes worth one more try: serialization failure, deadlock. */
export const retryableCodes = new Set(['40001', '40P01'])

export interface DatabaseOptions {
  max?: number
  applicationName?: string
  /**
   * PostgreSQL ends a session left inside a transaction this long without a statement
   * (idle_in_transaction_session_timeout), releasing its locks: a holder that stopped
   * between two statements (a frozen process or VM) cannot block the others for longer.
   */
  idleInTransactionTimeoutMs?: number
}

export function openDatabase(url: string, options: DatabaseOptions = {}): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 6,
    types,
    application_name: options.applicationName,
    connectionTimeoutMillis: 10_000,
    idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs,
  })
  // An idle client whose server went away (restart) emits here; the pool drops it.
  pool.on('error', () => undefined)
  const toResult = <Row>(result: pg.QueryResult) => ({ rows: result.rows as Row[], rowCount: result.rowCount ?? 0 })
  return {
    async query<Row>(text: string, params?: unknown[]) {
      return toResult<Row>(await pool.query(text, params))
    },
    async transaction(fn) {
      const client = await pool.connect()
      // A connection cut while in use (PostgreSQL restarting) fails the query in flight;
      // without a listener its 'error' event would also end the process.
      const ignore = () => undefined
      client.on('error', ignore)
      let broken = false
      try {
        await client.query('BEGIN')
        const result = await fn({ query: async <Row>(text: string, params?: unknown[]) => toResult<Row>(await client.query(text, params)) })
        await client.query('COMMIT')
        return result
      } catch (error) {
        await client.query('ROLLBACK').catch(() => (broken = true))
        throw error
      } finally {
        client.off('error', ignore)
        client.release(broken)
      }
    },
    async listen(channel, onNotify, onError) {
      const client = new pg.Client({ connectionString: url, types, application_name: options.applicationName })
      client.on('notification', (message) => {
        if (message.channel === channel) onNotify(message.payload ?? '')
      })
      client.on('error', (error) => onError?.(error))
      await client.connect()
      await client.query(`LISTEN "${channel.replace(/"/g, '""')}"`)
      return { close: () => client.end().catch(() => undefined) }
    },
    close: () => pool.end(),
  }
}
