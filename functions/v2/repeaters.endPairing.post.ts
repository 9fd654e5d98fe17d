import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'
import type { PairingState } from '../../runtime/workers/pairing-state.ts'

export const config = {
  method: 'POST',
  path: '/api/v2/repeaters/endPairing',
  auth: 'bearer',
  scope: 'admin',
  code: 17,
  summary: 'Stop listening for repeaters',
  outcomes: ['PAIRING_CLOSED'],
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'JSON_INVALID', 'RATE_LIMITED'],
} as const satisfies FunctionConfig

type Answer = { pairing: PairingState }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  await ctx.body()
  return ctx.ok({ pairing: await ctx.services.pairing.end() }, { outcome: 'PAIRING_CLOSED' })
}

export default handler
