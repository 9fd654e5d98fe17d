import { webhookOwner } from '../../lib/api/webhook-owner.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

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

const handler: GatewayFunction = async (_request, ctx) => {
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
