// Shared pieces for headquarters' tests: one real PostgreSQL per test file (a database per
// test), a real Mosquitto, HQ ingest instances, and publishers for simulated sites.
import { connect, type MqttClient } from 'mqtt'
import { hqConfigSchema, type HqConfig } from '../../../lib/hq/config.ts'
import { Ingest } from '../../../lib/hq/ingest.ts'
import { ensureSchema } from '../../../lib/hq/schema.ts'
import { openDatabase, type Database } from '../../../lib/store/postgres.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { until } from '../../helpers/until.ts'
import type { SiteMessageOut } from '../../../bench/hq-sites.ts'

export const prefix = 'chain'

export function hqConfig(overrides: Partial<HqConfig> & { postgresUrl: string; brokerUrl: string; instanceId: string }): HqConfig {
  const { brokerUrl, ...rest } = overrides
  return hqConfigSchema.parse({ topicPrefix: prefix, broker: { url: brokerUrl }, batchWaitMs: 5, ...rest })
}

let databases = 0

/** A fresh database with HQ's schema on the file's server. */
export async function freshDatabase(server: { createDatabase(name: string): Promise<string> }): Promise<{ url: string; db: Database }> {
  const url = await server.createDatabase(`hq_test_${process.pid}_${++databases}`)
  const db = openDatabase(url, { max: 4 })
  await ensureSchema(db)
  return { url, db }
}

export async function startIngest(config: HqConfig, db: Database): Promise<Ingest> {
  const logs = memoryLogger('warn')
  const ingest = new Ingest({ config, db, log: logs.log })
  ingest.start()
  await ingest.connected()
  await until(() => ingest.status().subscribed, 'subscribed')
  return ingest
}

export async function publisher(
  url: string,
  clientId = `site-pub-${Math.random().toString(16).slice(2)}`,
  auth: { username?: string; password?: string } = {},
): Promise<MqttClient> {
  const client = connect(url, { clientId, protocolVersion: 4, reconnectPeriod: 200, ...auth })
  client.on('error', () => undefined)
  await new Promise<void>((resolve) => client.once('connect', () => resolve()))
  return client
}

export async function publishAll(client: MqttClient, messages: SiteMessageOut[], retainStatus = true): Promise<void> {
  await Promise.all(messages.map((m) => client.publishAsync(m.topic, m.payload, { qos: 1, retain: retainStatus && m.topic.endsWith('/status') })))
}

/** The rows that must be the same however messages arrived (ordered, comparable). */
export async function snapshot(db: Database) {
  const live = await db.query('SELECT site_id, uuid, seq, state, location_name, created_at, state_started FROM hq_live_orders ORDER BY site_id, uuid')
  const history = await db.query(
    'SELECT site_id, uuid, seq, order_started, order_located, order_cleared, local_day, local_hour FROM hq_history ORDER BY site_id, uuid',
  )
  const hours = await db.query('SELECT site_id, day, hour, orders, located, to_table_seconds, late FROM hq_site_hours ORDER BY site_id, day, hour')
  const days = await db.query('SELECT site_id, day, orders, located, to_table_seconds, late FROM hq_site_days ORDER BY site_id, day')
  const chain = await db.query('SELECT day, hour, orders, located, to_table_seconds, late FROM hq_chain_hours ORDER BY day, hour')
  const sites = await db.query('SELECT site_id, last_seq FROM hq_sites ORDER BY site_id')
  return { live: live.rows, history: history.rows, hours: hours.rows, days: days.rows, chain: chain.rows, sites: sites.rows }
}
