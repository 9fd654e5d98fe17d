import { maxGrid } from '../../lib/settings/floor.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

const cell = { type: 'integer', minimum: 0, maximum: maxGrid - 1 }

export const config = {
  method: 'POST',
  path: '/api/v2/floor',
  auth: 'bearer',
  code: 22,
  summary:
    'Extension (floor plan): replaces the floor plan (validated whole: every table once, one table per cell, cells inside the grid; 400/-21 naming the field otherwise); answers with it inside `floor`',
  body: {
    type: 'object',
    required: ['columns', 'rows', 'tables'],
    additionalProperties: false,
    properties: {
      columns: { type: 'integer', minimum: 1, maximum: maxGrid },
      rows: { type: 'integer', minimum: 1, maximum: maxGrid },
      tables: {
        type: 'array',
        items: { type: 'object', required: ['table', 'x', 'y'], additionalProperties: false, properties: { table: { type: 'integer', minimum: 1, maximum: 9999 }, x: cell, y: cell } },
      },
    },
  },
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'SETTINGS_VALUE_INVALID', 'JSON_INVALID'],
} as const satisfies FunctionConfig

const handler: GatewayFunction = async (_request, ctx) => ctx.ok({ floor: await ctx.services.floor.update(await ctx.body()) })

export default handler
