import { pairingBody } from '../../lib/api/gateway-input.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'
import type { PairingState } from '../../runtime/workers/pairing-state.ts'

export const config = {
  method: 'POST',
  path: '/api/v2/repeaters/beginPairing',
  auth: 'bearer',
  scope: 'admin',
  code: 16,
  summary: 'Listen for repeaters joining for timeout seconds (0-254, default 60); 0 stops listening (1013)',
  body: pairingBody.schema(),
  outcomes: ['PAIRING_OPEN', 'PAIRING_CLOSED'],
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'PAIRING_TIMEOUT_INVALID', 'JSON_INVALID', 'RATE_LIMITED'],
} as const satisfies FunctionConfig

type Answer = { pairing: PairingState }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  const { timeout: seconds } = pairingBody.parse(await ctx.body())
  const pairing = await ctx.services.pairing.begin(seconds)
  return ctx.ok({ pairing }, { outcome: pairing.open ? 'PAIRING_OPEN' : 'PAIRING_CLOSED' })
}

export default handler
