// Finds and runs the route for a request, over the route table itty-router compiled (its path
// syntax, `:params`, `*`, tolerated trailing slashes; first registered match wins, a handler
// that returns nothing passes the request on). itty's own fetch() parses the whole URL and
// tests every route's pattern for every request, about 20 µs here, as much as the rest of the
// router together (docs/performance.md). Here the path the HTTP host already split off is
// used when parsing could not change it, and routes without parameters are looked up by
// method and path in one step.
import type { RouteEntry } from 'itty-router'
import { NodeRequest } from './node-request.ts'

export type RouteHandler<Args extends unknown[]> = (request: Request, ...args: Args) => unknown

/** A path `new URL()` leaves as it is: no dot segments, escapes or characters it would encode. */
const plainPath = /^[/A-Za-z0-9_~-]*$/

type Dispatchable = Request & { params?: Record<string, string> }

/** The path as itty-router matches it: the URL-parsed pathname. */
export function routingPath(request: Request): string {
  if (request instanceof NodeRequest && plainPath.test(request.pathname)) return request.pathname
  return new URL(request.url).pathname
}

export function createDispatcher<Args extends unknown[]>(routes: RouteEntry[]) {
  // "GET /api/v2/activeorders" → the position of that route, for routes without parameters
  // that no earlier route could take first.
  const exact = new Map<string, number>()
  routes.forEach(([method, , , path], index) => {
    if (path === undefined || /[:*]/.test(path)) return
    const earlier = routes.slice(0, index).some(([m, p]) => (m === method || m === 'ALL') && p.test(path))
    if (!earlier) exact.set(`${method} ${path}`, index)
  })

  return async function dispatch(request: Request, ...args: Args): Promise<Response | undefined> {
    const path = routingPath(request)
    const routed = request as Dispatchable
    const direct = exact.get(`${request.method} ${path.length > 1 ? path.replace(/\/+$/, '') : path}`)
    if (direct !== undefined) {
      const answer = await run(routes[direct], routed, {}, args)
      if (answer !== undefined) return answer
    }
    for (let index = direct === undefined ? 0 : direct + 1; index < routes.length; index++) {
      const [method, pattern] = routes[index]
      if (method !== request.method && method !== 'ALL') continue
      const match = pattern.exec(path)
      if (!match) continue
      const answer = await run(routes[index], routed, match.groups ?? {}, args)
      if (answer !== undefined) return answer
    }
    return undefined
  }
}

async function run(route: RouteEntry, request: Dispatchable, params: Record<string, string>, args: unknown[]): Promise<Response | undefined> {
  request.params = params
  for (const handler of route[2] as RouteHandler<unknown[]>[]) {
    const answer = await handler(request, ...args)
    if (answer !== undefined && answer !== null) return answer as Response
  }
  return undefined
}
