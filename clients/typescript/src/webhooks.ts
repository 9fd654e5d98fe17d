// Webhooks: the gateway signs every delivery the Standard Webhooks way (webhook-id,
// webhook-timestamp, webhook-signature v1 = HMAC-SHA256 with the secret from registering).
import { Webhook } from 'standardwebhooks'
import type { components } from './schema.d.ts'

/** A delivery's body: the v2 active order of the change, its seq and which change it was. */
export type OrderWebhook = Record<string, unknown> & {
  uuid: string
  name: string
  seq: number
  state: components['schemas']['ActiveOrderV2']['state']
  type: 'ORDER_MODIFIED'
  changeType: 'ORDER_CREATED' | 'ORDER_MODIFIED' | 'ORDER_PAGED' | 'ORDER_CLEARED'
}

/**
 * The delivery's body when its signature verifies with `secret` (whsec_...) and its timestamp is
 * within 5 minutes; throws otherwise. `body` is the raw text as received: verify before parsing.
 */
export function verifyWebhook(secret: string, body: string, headers: Record<string, string | string[] | undefined>): OrderWebhook {
  const flat: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value
  return new Webhook(secret).verify(body, flat) as OrderWebhook
}
