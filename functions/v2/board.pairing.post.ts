import { pairingRequestBody } from '../../lib/api/screen-pairing-input.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'POST',
  path: '/api/v2/board/pairing',
  auth: 'none',
  code: 23,
  successStatus: 201,
  summary:
    'Extension (screen sign-in): a new screen asks for a short code to show (no token needed); a signed-in screen approves it, and the new screen collects its own token by polling `id`. Asking again, a screen sends its earlier `id` as `replaces`, and that request is dropped. Codes expire after 10 minutes; at most 32 wait, 4 per client address (429/-44, saying when to retry)',
  body: pairingRequestBody.schema(),
  errors: ['TOKEN_NAME_INVALID', 'SCREEN_REQUEST_NOT_FOUND', 'SCREEN_CODES_EXHAUSTED', 'JSON_INVALID'],
} as const satisfies FunctionConfig

type Answer = { pairing: { id: string; code: string; name: string; expiresIn: number } }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  const { name, replaces } = pairingRequestBody.parse(await ctx.body())
  const request = ctx.services.screens.request(ctx.caller.ip, name, replaces)
  return ctx.ok(
    { pairing: { id: request.id, code: request.code, name: request.name, expiresIn: Math.round((request.expiresAt - ctx.services.clock.now()) / 1000) } },
    { status: 201, headers: { 'cache-control': 'no-store' } },
  )
}

export default handler
