import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'
import type { FloorPlan } from '../../lib/settings/types.ts'

export const config = {
  method: 'GET',
  path: '/api/v2/floor',
  auth: 'bearer',
  scope: 'read',
  code: 22,
  summary: 'Extension (floor plan): the grid the board draws the tables on (columns, rows, each table in a cell), inside `floor`',
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED'],
} as const satisfies FunctionConfig

type Answer = { floor: FloorPlan }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => ctx.ok({ floor: ctx.services.floor.get() })

export default handler
