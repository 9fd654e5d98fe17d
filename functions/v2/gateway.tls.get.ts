import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'
import type { TlsStatus } from '../../lib/gateway/tls-status.ts'

export const config = {
  method: 'GET',
  path: '/api/v2/gateway/tls',
  auth: 'none',
  code: 25,
  summary:
    "Extension (TLS): the HTTPS port and its certificate's SHA-256 fingerprints, inside `tls` (null when HTTPS is off). Open: the board's sign-in screen shows them so a person can compare them with the browser's before trusting the box",
} as const satisfies FunctionConfig

type Answer = { tls: TlsStatus | null }

const handler: GatewayFunction<Answer, 'v2'> = async (_request, ctx) => ctx.ok({ tls: ctx.services.tlsStatus.get() })

export default handler
