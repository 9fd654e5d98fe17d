// Whether a request carries an access token that verifies, for the connection guard: such a
// request takes no share of its address (runtime/host/connection-limits.ts), so a board
// behind the same address as a device that floods slow requests is answered at once. The
// guard asks only when the address's share is full; the router still checks every request.
// A token that does not verify then counts as a failed attempt of that address (the token
// service records it), once more if the route itself needs the token: only a client whose
// share is full and that presents a wrong token is limited sooner.
import type { IncomingMessage } from 'node:http'
import { addressOf } from './connection-limits.ts'
import type { Services } from '../wiring/services.ts'

const bearer = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i

export function credentialedBy(tokens: Services['tokens']): (request: IncomingMessage) => boolean {
  return (request) => {
    const match = bearer.exec(request.headers.authorization ?? '')
    return match !== null && tokens.verifyTokenNow(match[1], addressOf(request.socket)) !== null
  }
}
