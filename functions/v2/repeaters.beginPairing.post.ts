import { DomainError } from '../../lib/kernel/errors.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'POST',
  path: '/api/v2/repeaters/beginPairing',
  auth: 'bearer',
  code: 16,
  summary: 'Listen for repeaters joining for timeout seconds (0-254, default 60); 0 stops listening (1013)',
  body: {
    type: 'object',
    properties: { timeout: { type: 'integer', minimum: 0, maximum: 254, default: 60 } },
  },
  outcomes: ['PAIRING_OPEN', 'PAIRING_CLOSED'],
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'PAIRING_TIMEOUT_INVALID', 'JSON_INVALID', 'RATE_LIMITED'],
} as const satisfies FunctionConfig

export const defaultPairingSeconds = 60

/** An integer 0-254, as a JSON number or a digit string. */
function pairingTimeout(value: unknown): number {
  if (value === undefined) return defaultPairingSeconds
  const n = typeof value === 'string' && /^[0-9]{1,3}$/.test(value) ? Number(value) : value
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 254) throw new DomainError('PAIRING_TIMEOUT_INVALID')
  return n
}

const handler: GatewayFunction = async (_request, ctx) => {
  const seconds = pairingTimeout((await ctx.body()).timeout)
  const pairing = await ctx.services.pairing.begin(seconds)
  return ctx.ok({ pairing }, { outcome: pairing.open ? 'PAIRING_OPEN' : 'PAIRING_CLOSED' })
}

export default handler
