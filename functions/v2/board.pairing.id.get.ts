import { pairingId } from '../../lib/api/screen-pairing-input.ts'
import type { FunctionConfig, GatewayFunction, IssuedTokenWire } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'GET',
  path: '/api/v2/board/pairing/:id',
  auth: 'none',
  code: 23,
  summary:
    'Extension (screen sign-in): the new screen polls its request; `state` "waiting", or "approved" with its `token`, minted now (shown once, then the request is gone: 404/-43; when no token may be added, 409/-50 and the approval waits to be collected while the code lives)',
  errors: ['SCREEN_REQUEST_NOT_FOUND', 'TOKEN_LIMIT_REACHED', 'STORAGE_UNAVAILABLE'],
} as const satisfies FunctionConfig

type Answer = { pairing: { state: 'waiting'; expiresIn: number } } | { pairing: { state: 'approved' }; token: IssuedTokenWire }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  const poll = await ctx.services.screens.poll(pairingId(ctx.params.id))
  if (poll.state === 'waiting') {
    return ctx.ok({ pairing: { state: 'waiting', expiresIn: Math.round((poll.expiresAt - ctx.services.clock.now()) / 1000) } })
  }
  return ctx.ok(
    { pairing: { state: 'approved' }, token: ctx.present.token(poll.issued.record, poll.issued.token) },
    { headers: { 'cache-control': 'no-store' } },
  )
}

export default handler
