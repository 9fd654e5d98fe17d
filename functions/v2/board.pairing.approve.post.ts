import { pairingApproveBody } from '../../lib/api/screen-pairing-input.ts'
import { screenScope } from '../../lib/tokens/scopes.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'
import type { Scope } from '../../lib/tokens/scopes.ts'

export const config = {
  method: 'POST',
  path: '/api/v2/board/pairing/approve',
  auth: 'bearer',
  scope: 'admin',
  code: 23,
  successStatus: 201,
  summary:
    "Extension (screen sign-in): approves the `code` a new screen shows: that screen gets its own token named `name` (default: the name it suggested) of `scope` (default screen), minted when it collects it (uncollected, it lapses with the code, minting nothing); the token itself goes only to the waiting screen. Unknown, expired or already approved code: 404/-42; more than 10 wrong codes a minute from one address: 429/-36; a scope above the approver's: 403/-51",
  body: pairingApproveBody.schema(),
  errors: [
    'AUTH_MALFORMED',
    'AUTH_REJECTED',
    'SCREEN_CODE_UNKNOWN',
    'TOKEN_NAME_INVALID',
    'SCOPE_INVALID',
    'SCOPE_DENIED',
    'TOKEN_LIMIT_REACHED',
    'JSON_INVALID',
    'RATE_LIMITED',
  ],
} as const satisfies FunctionConfig

type Answer = { screen: { name: string; prefix: string; scope: Scope } }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  const { code, name, scope } = pairingApproveBody.parse(await ctx.body())
  // Opened by security.openRoutes there is no token: such an approval gives at most a screen's scope.
  const approver = ctx.caller.token ?? { name: 'open route', scope: screenScope }
  const approved = ctx.services.screens.approve(code, approver, ctx.caller.ip, { name, scope })
  return ctx.ok({ screen: approved }, { status: 201 })
}

export default handler
