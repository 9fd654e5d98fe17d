// Delivers the alert webhooks queued in hq_webhook_outbox, signed as the gateway signs its
// own (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature v1,<HMAC-SHA256>,
// lib/webhooks/signing.ts) and sent through the gateway's guarded client (lib/webhooks:
// no redirects followed, a deadline, private addresses refused unless allowed). The queue is
// in PostgreSQL, not in a data dir: any instance may deliver what another raised, and an
// entry is locked (SKIP LOCKED) by the one sending it. Failed attempts back off up to 10 min.
import type { Logger } from '../kernel/log.ts'
import type { Database } from '../store/postgres.ts'
import { WebhookClient } from '../webhooks/http-client.ts'
import { hmacSignature, signedContent } from '../webhooks/signing.ts'
import { TargetGuard } from '../webhooks/target.ts'
import type { HqConfig } from './config.ts'

export interface OutboxRow {
  id: number
  url: string
  message_id: string
  body: string
  attempts: number
}

export class AlertWebhooks {
  readonly #db: Database
  readonly #config: HqConfig['alerts']
  readonly #log: Logger
  readonly #client: WebhookClient

  constructor(db: Database, config: HqConfig['alerts'], log: Logger) {
    this.#db = db
    this.#config = config
    this.#log = log
    this.#client = new WebhookClient(new TargetGuard({ allowLoopback: config.allowPrivateTargets, ownEndpoint: () => null }))
  }

  /** Sends what is due (up to `limit`); returns how many were delivered. */
  async deliverDue(limit = 20, nowSeconds = () => Math.floor(Date.now() / 1000)): Promise<number> {
    return this.#db.transaction(async (tx) => {
      const { rows } = await tx.query<OutboxRow>(
        'SELECT id, url, message_id, body, attempts FROM hq_webhook_outbox WHERE next_at <= now() ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED',
        [limit],
      )
      let delivered = 0
      for (const row of rows) {
        const secret = this.#config.webhooks.find((hook) => hook.url === row.url)?.secret
        if (!secret) {
          // The URL was removed from the config: nobody is waiting for it any more.
          await tx.query('DELETE FROM hq_webhook_outbox WHERE id = $1', [row.id])
          continue
        }
        const timestamp = nowSeconds()
        let error: string
        try {
          const result = await this.#client.send(new URL(row.url), {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'webhook-id': row.message_id,
              'webhook-timestamp': String(timestamp),
              'webhook-signature': hmacSignature(secret, signedContent(row.message_id, timestamp, row.body)),
            },
            body: row.body,
            timeoutMs: 10_000,
          })
          if (result.status >= 200 && result.status < 300) {
            await tx.query('DELETE FROM hq_webhook_outbox WHERE id = $1', [row.id])
            delivered++
            continue
          }
          error = `HTTP ${result.status}`
        } catch (failure) {
          error = (failure as Error).message
        }
        const delay = Math.min(600, 5 * 2 ** Math.min(row.attempts, 7))
        await tx.query('UPDATE hq_webhook_outbox SET attempts = attempts + 1, last_error = $2, next_at = now() + make_interval(secs => $3) WHERE id = $1', [
          row.id,
          error.slice(0, 300),
          delay,
        ])
        this.#log.warn({ url: row.url, error, attempts: row.attempts + 1 }, 'hq alert webhook not delivered')
      }
      return delivered
    })
  }

  close(): void {
    this.#client.close()
  }
}
