import { pairingApproveBody } from '../../lib/api/screen-pairing-input.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'

export const config = {
  method: 'POST',
  path: '/api/v2/board/pairing/approve',
  auth: 'bearer',
  code: 23,
  successStatus: 201,
  summary:
    'Extension (screen sign-in): approves the `code` a new screen shows, minting that screen its own token named `name` (default: the name it suggested); the token itself goes only to the waiting screen. Unknown, expired or already approved code: 404/-42; more than 10 wrong codes a minute from one address: 429/-36',
  body: pairingApproveBody.schema(),
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'SCREEN_CODE_UNKNOWN', 'TOKEN_NAME_INVALID', 'JSON_INVALID', 'RATE_LIMITED'],
} as const satisfies FunctionConfig

const handler: GatewayFunction = async (_request, ctx) => {
  const { code, name } = pairingApproveBody.parse(await ctx.body())
  const approved = await ctx.services.screens.approve(code, ctx.caller.token?.name ?? 'open route', ctx.caller.ip, name)
  return ctx.ok({ screen: approved }, { status: 201 })
}

export default handler
