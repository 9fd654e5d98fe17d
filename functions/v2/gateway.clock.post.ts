// POST /api/v2/gateway/clock (extension): a signed-in board sets the gateway's clock from its
// device, for a restaurant whose box gets no network time. Refused while the system says
// its clock is synchronised; bounded; logged. The system clock is not touched: the gateway
// keeps the difference (lib/kernel/clock-watch.ts, docs/api.md "Clock").
import { clockBody } from '../../lib/api/clock-input.ts'
import { DomainError } from '../../lib/kernel/errors.ts'
import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'
import type { ClockState } from '../../lib/kernel/clock-state.ts'

export const config = {
  method: 'POST',
  path: '/api/v2/gateway/clock',
  auth: 'bearer',
  scope: 'admin',
  code: 11,
  summary: "Set the gateway's clock from a signed-in device while the system clock is not synchronised (extension)",
  body: clockBody.schema(),
  errors: ['AUTH_MALFORMED', 'AUTH_REJECTED', 'JSON_INVALID', 'RATE_LIMITED', 'SETTINGS_VALUE_INVALID'],
} as const satisfies FunctionConfig

type Answer = { clock: ClockState & { shiftMs: number } }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => {
  const { time } = clockBody.parse(await ctx.body())
  const watch = ctx.services.clockWatch
  if (!watch) throw new DomainError('SETTINGS_VALUE_INVALID', 'time: this gateway clock cannot be set')
  const { shiftMs } = await watch.setFromBoard(time, ctx.caller.token?.name ?? null)
  return ctx.ok({ clock: { ...watch.state(), shiftMs } })
}

export default handler
