import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'
import type { PublicJwk } from '../../lib/webhooks/types.ts'

export const config = {
  method: 'GET',
  path: '/api/v2/register/jwks',
  auth: 'none',
  code: 19,
  summary: "Extension: the gateway's public ed25519 key(s) as a JWKS document, to verify the v1a entry of webhook-signature without a shared secret",
} as const satisfies FunctionConfig

type Answer = { keys: PublicJwk[] }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) =>
  ctx.ok(await ctx.services.webhooks.jwks(), { headers: { 'cache-control': 'public, max-age=300' } })

export default handler
