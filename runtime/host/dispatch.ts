// Finds and runs the route for a request, over the route table itty-router compiled (its path
// syntax, `:params`, `*`, tolerated trailing slashes; first registered match wins, a handler
// that returns nothing passes the request on). itty's own fetch() parses the whole URL and
// tests every route's pattern for every request, about 20 µs here, as much as the rest of the
// router together (docs/decisions/0003-fast-http-host.md). Here the path the HTTP host already split off is
// used when parsing could not change it, and routes without parameters are looked up by
// method and path in one step.
import type { RouteEntry } from 'itty-router'
import { NodeRequest } from './node-request.ts'

export type RouteHandler<Args extends unknown[]> = (request: Request, ...args: Args) => unknown

const alwaysAnswers = Symbol('answers always')

/**
 * Marks a handler that never passes a request on: it answers (a promise of a Response) or
 * rejects. A route made of one such handler found by the exact lookup is run without
 * awaiting it here (its promise is the answer): one suspended async function fewer per
 * request (issue 30).
 */
export function answersAlways<H extends (...args: never[]) => Promise<unknown>>(handler: H): H {
  return Object.assign(handler, { [alwaysAnswers]: true })
}

function isAnsweringRoute(route: RouteEntry): boolean {
  const handlers = route[2] as unknown as { [alwaysAnswers]?: boolean }[]
  return handlers.length === 1 && handlers[0][alwaysAnswers] === true
}

/** A path `new URL()` leaves as it is: no dot segments, escapes or characters it would encode. */
const plainPath = /^[/A-Za-z0-9_~-]*$/

type Dispatchable = Request & { params?: Record<string, string> }

/** The path as itty-router matches it: the URL-parsed pathname. */
export function routingPath(request: Request): string {
  if (request instanceof NodeRequest && plainPath.test(request.pathname)) return request.pathname
  return new URL(request.url).pathname
}

export function createDispatcher<Args extends unknown[]>(routes: RouteEntry[]) {
  // method → path → the position of that route, for routes without parameters that no
  // earlier route could take first. Two lookups with the strings the request already has:
  // building a "GET /path" key for every request cost more than the lookup (issue 30).
  const exact = new Map<string, Map<string, number>>()
  routes.forEach(([method, , , path], index) => {
    if (path === undefined || /[:*]/.test(path)) return
    const earlier = routes.slice(0, index).some(([m, p]) => (m === method || m === 'ALL') && p.test(path))
    if (earlier) return
    let paths = exact.get(method)
    if (!paths) exact.set(method, (paths = new Map()))
    if (!paths.has(path)) paths.set(path, index)
  })

  const answering = routes.map(isAnsweringRoute)

  return function dispatch(request: Request, ...args: Args): Promise<Response | undefined> {
    try {
      const path = routingPath(request)
      const direct = exact.get(request.method)?.get(withoutTrailingSlashes(path))
      if (direct !== undefined && answering[direct]) return run(routes[direct], request as Dispatchable, {}, args) as Promise<Response>
      return dispatchFrom(request, path, direct, args)
    } catch (error) {
      return Promise.reject(error)
    }
  }

  async function dispatchFrom(request: Request, path: string, direct: number | undefined, args: Args): Promise<Response | undefined> {
    const routed = request as Dispatchable
    if (direct !== undefined) {
      const answer = await run(routes[direct], routed, {}, args)
      if (answer !== undefined && answer !== null) return answer as Response
    }
    for (let index = direct === undefined ? 0 : direct + 1; index < routes.length; index++) {
      const [method, pattern] = routes[index]
      if (method !== request.method && method !== 'ALL') continue
      const match = pattern.exec(path)
      if (!match) continue
      const answer = await run(routes[index], routed, match.groups ?? {}, args)
      if (answer !== undefined && answer !== null) return answer as Response
    }
    return undefined
  }
}

/** itty-router tolerates trailing slashes: "/api/v2/" is "/api/v2" ("/" stays "/"). */
function withoutTrailingSlashes(path: string): string {
  if (path.length <= 1 || path.charCodeAt(path.length - 1) !== 47) return path
  return path.replace(/\/+$/, '')
}

/**
 * Runs a route's handlers in turn until one answers (null and undefined pass the request
 * on). Not an async function: the last handler's promise is handed back as it is, which
 * for the usual single handler saves a promise and a turn of the microtask queue per
 * request (issue 30).
 */
function run(route: RouteEntry, request: Dispatchable, params: Record<string, string>, args: unknown[]): unknown {
  request.params = params
  return runFrom(route[2] as RouteHandler<unknown[]>[], 0, request, args)
}

function runFrom(handlers: RouteHandler<unknown[]>[], from: number, request: Dispatchable, args: unknown[]): unknown {
  for (let index = from; index < handlers.length; index++) {
    const answer = args.length === 1 ? handlers[index](request, args[0]) : handlers[index](request, ...args)
    if (index === handlers.length - 1) return answer
    if (isThenable(answer)) {
      return Promise.resolve(answer).then((settled) => (settled === undefined || settled === null ? runFrom(handlers, index + 1, request, args) : settled))
    }
    if (answer !== undefined && answer !== null) return answer
  }
  return undefined
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as PromiseLike<unknown>).then === 'function'
}
