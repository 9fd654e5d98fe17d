// Two HQ instances in this process over one real PostgreSQL database and one real Mosquitto:
// `a` ingests the sites' messages, `b` subscribes under another prefix (it ingests nothing)
// and serves the same database, so what reaches b's board came through PostgreSQL.
import type { Test } from 'tap'
import { HqTokens } from '../../../lib/hq/tokens.ts'
import { startHq, type HqInstance } from '../../../runtime/hq/main.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { until } from '../../helpers/until.ts'
import { checkAnswersFrom } from '../../helpers/checked-origins.ts'
import { hqDescribedApi } from '../../helpers/hq-documented.ts'
import type { PostgresServer } from '../../helpers/postgres.ts'
import { startBroker, type Broker } from '../../lib/fleet/mosquitto.ts'
import { freshDatabase, hqConfig } from '../../lib/hq/fixtures.ts'
import type { HqConfig } from '../../../lib/hq/config.ts'

export const brokerLines = ['max_inflight_messages 1000', 'max_queued_messages 0']

export interface Chain {
  broker: Broker
  a: HqInstance
  b: HqInstance
  token: string
  url: (instance: HqInstance) => string
}

export async function startChain(t: Test, pg: PostgresServer, overrides: Partial<HqConfig> = {}): Promise<Chain> {
  const broker = await startBroker({ dir: t.testdir(), lines: brokerLines })
  t.teardown(() => broker.stop())
  const { url: postgresUrl, db } = await freshDatabase(pg)
  const { token } = await new HqTokens(db).create('test')
  await db.close()
  const start = (instanceId: string, topicPrefix?: string) =>
    startHq({
      config: hqConfig({ postgresUrl, brokerUrl: broker.url, instanceId, port: 0, host: '127.0.0.1', ...overrides, ...(topicPrefix ? { topicPrefix } : {}) }),
      log: memoryLogger('error').log,
    })
  const a = await start('a')
  t.teardown(() => a.stop())
  const b = await start('b', 'elsewhere')
  t.teardown(() => b.stop())
  // Every answer the tests fetch from either is held to HQ's OpenAPI document (checked-origins.ts).
  for (const instance of [a, b]) t.teardown(checkAnswersFrom(`http://127.0.0.1:${instance.port}`, hqDescribedApi))
  await Promise.all([a.ingest.connected(), b.ingest.connected()])
  await until(() => a.ingest.status().subscribed && b.ingest.status().subscribed, 'both subscribed')
  return { broker, a, b, token, url: (instance) => `http://127.0.0.1:${instance.port}` }
}

export function hqApi(base: string, token: string) {
  return async (route: string, headers: Record<string, string> = { authorization: `Bearer ${token}` }) => {
    const response = await fetch(`${base}${route}`, { headers })
    return { status: response.status, body: (await response.json()) as any }
  }
}
