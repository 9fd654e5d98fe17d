// testGateway(): the whole service graph in memory (NeDB inMemoryOnly, manual clock) behind
// the real router, answering `new Request`s without a socket. Every answer is checked against
// the OpenAPI document (./documented-responses.ts): one outside it fails the call.
import { ManualClock } from './manual-clock.ts'
import { parseConfig, type GatewayConfig } from '../../lib/config.ts'
import { memoryLogger } from './memory-logger.ts'
import { SimulatedRadio } from '../../lib/radio/simulated.ts'
import { manifest } from '../../functions/_manifest.gen.ts'
import { buildRouter, type GatewayRouter, type ServerContext } from '../../runtime/host/router.ts'
import { buildServices, type Services } from '../../runtime/wiring/services.ts'
import { checkedRouter } from './documented-responses.ts'

export interface TestGateway {
  clock: ManualClock
  services: Services
  router: GatewayRouter
  logs: ReturnType<typeof memoryLogger>
  /** The simulated restaurant (services.radio), started: drive trackers with it. */
  radio: SimulatedRadio
  call(route: string, options?: CallOptions): Promise<Response>
  /** call() and parse the JSON body, with the HTTP status alongside. */
  json(route: string, options?: CallOptions): Promise<{ status: number; body: any; headers: Headers }>
  /** Presses the button and generates a token through the router; returns the full token. */
  issueToken(name?: string): Promise<string>
}

export interface CallOptions {
  body?: unknown
  /** Raw body text, sent as is (for malformed JSON). */
  rawBody?: string
  token?: string
  headers?: Record<string, string>
  ip?: string
}

/** `clock`: another hand-moved clock (a SteppingClock, whose steps the gateway mends). */
export async function testGateway(
  configInput: Record<string, unknown> = {},
  start?: string,
  clock: ManualClock = new ManualClock(start),
): Promise<TestGateway> {
  const config: GatewayConfig = parseConfig({ dataDir: '/nonexistent-test-data', ...configInput })
  const logs = memoryLogger()
  const services = await buildServices({ config, clock, log: logs.log, inMemory: true })
  const router = checkedRouter(buildRouter(manifest, services))
  if (!(services.radio instanceof SimulatedRadio)) throw new Error('testGateway needs the simulated radio')
  const radio = services.radio
  await radio.start()
  const call = (route: string, options: CallOptions = {}) => router.fetch(makeRequest(route, options), clientAt(options.ip))
  const issueToken = async (name = 'default') => {
    services.button.press()
    const response = await call(`GET /api/v2/accesstoken/generate?name=${encodeURIComponent(name)}`)
    const body = (await response.json()) as { token?: { token?: string } }
    if (response.status !== 201 || typeof body.token?.token !== 'string') {
      throw new Error(`issueToken: ${response.status} ${JSON.stringify(body)}`)
    }
    return body.token.token
  }
  return {
    issueToken,
    radio,
    clock,
    services,
    router,
    logs,
    call,
    json: async (route, options) => {
      const response = await call(route, options)
      // The one answer that is not JSON (the Prometheus text of /api/v2/metrics) comes as text.
      const json = /json/.test(response.headers.get('content-type') ?? '')
      return { status: response.status, body: json ? await response.json() : await response.text(), headers: response.headers }
    },
  }
}

/** The server context of a request from `ip` (what the HTTP host passes for a real socket). */
export function clientAt(ip: string | undefined): ServerContext | undefined {
  return ip === undefined ? undefined : { req: { socket: { remoteAddress: ip } } }
}

/** 'POST /api/v2/activeorders?x=1' → a Request for http://gateway.test/... (options.ip: see clientAt) */
export function makeRequest(route: string, options: CallOptions = {}): Request {
  const [method, target] = route.split(' ', 2)
  const headers: Record<string, string> = { ...options.headers }
  if (options.token) headers.authorization = `Bearer ${options.token}`
  let body: string | undefined
  if (options.rawBody !== undefined) body = options.rawBody
  else if (options.body !== undefined) body = JSON.stringify(options.body)
  if (body !== undefined) headers['content-type'] ??= 'application/json'
  return new Request(`http://gateway.test${target}`, { method, headers, body })
}
