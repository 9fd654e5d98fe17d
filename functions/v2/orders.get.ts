import { historyListInput, historyQueryDocs } from '../../lib/api/history-input.ts'
import type { FunctionConfig, GatewayFunction, RawJson } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'GET',
  path: '/api/v2/orders',
  auth: 'bearer',
  scope: 'read',
  code: 8,
  summary: 'Order history, newest first, with filters; count is the total matching (a string)',
  query: historyQueryDocs('v2'),
  errors: [
    'AUTH_MALFORMED',
    'AUTH_REJECTED',
    'LOCATION_INVALID',
    'ORDER_TYPE_INVALID',
    'LIMIT_INVALID',
    'OFFSET_INVALID',
    'AS_OF_INVALID',
    'DATE_INVALID',
    'LIMIT_TOO_LARGE',
  ],
} as const satisfies FunctionConfig

type Answer = { count: string; asOf: string; items: RawJson }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  const { timezone } = ctx.present
  const { filter, page } = historyListInput(ctx.query, 'v2', timezone)
  const { count, asOf, items } = ctx.services.historyPages.presented(filter, page, timezone)
  return ctx.ok({ count: String(count), asOf: String(asOf), items })
}

export default handler
