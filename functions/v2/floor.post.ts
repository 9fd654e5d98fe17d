import { bodySchemaOf } from '../../lib/api/input-schema.ts'
import { planSchema } from '../../lib/settings/floor.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'
import type { FloorPlan } from '../../lib/settings/types.ts'

export const config = {
  method: 'POST',
  path: '/api/v2/floor',
  auth: 'bearer',
  scope: 'admin',
  code: 22,
  summary:
    'Extension (floor plan): replaces the floor plan (validated whole: every table once, one table per cell, cells inside the grid, each table optionally in a named area; 400/-21 naming the field otherwise); answers with it inside `floor`',
  // The plan's own schema (lib/settings/floor.ts) is the document: the cross-field rules
  // (every table once, one table per cell, cells inside the grid) are in the summary only.
  body: bodySchemaOf(planSchema),
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'SETTINGS_VALUE_INVALID', 'JSON_INVALID'],
} as const satisfies FunctionConfig

type Answer = { floor: FloorPlan }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => ctx.ok({ floor: await ctx.services.floor.update(await ctx.body()) })

export default handler
