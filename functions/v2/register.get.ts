import { webhookOwner } from '../../lib/api/webhook-owner.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'
import type { WebhookState } from '../../lib/webhooks/types.ts'

export const config = {
  method: 'GET',
  path: '/api/v2/register',
  auth: 'bearer',
  scope: 'pos',
  code: 19,
  summary:
    'List registered callback URLs with delivery state, last success, last error and backlog (never the secret); a pos token sees only those it registered',
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED'],
} as const satisfies FunctionConfig

type Answer = {
  count: number
  webhooks: {
    url: string
    version: 'v1' | 'v2'
    state: WebhookState
    created: string | null
    lastSuccess: string | null
    lastError: { at: string | null; message: string } | null
    backlog: number
    dropped: number
  }[]
}

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  const { time } = ctx.present
  const webhooks = ctx.services.webhooks.list(webhookOwner(ctx.caller.token)).map((w) => ({
    url: w.url,
    version: w.version,
    state: w.state,
    created: time(w.created),
    lastSuccess: time(w.lastSuccess),
    lastError: w.lastError && { at: time(w.lastError.at), message: w.lastError.message },
    backlog: w.backlog,
    dropped: w.dropped,
  }))
  return ctx.ok({ count: webhooks.length, webhooks })
}

export default handler
