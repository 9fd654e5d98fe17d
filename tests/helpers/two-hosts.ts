// Two gateways in lockstep for differential tests: the same config, start time, device id and
// order UUIDs, one behind the fast host (runtime/host/http.ts) and one behind the @whatwg-node/server
// adapter (runtime/host/fetch-adapter.ts) on a node:http server. Every request goes to both over a
// real socket, byte for byte the same; the answers are compared by the caller. Access tokens
// are the one thing drawn at random per gateway: each pair issued is recorded, and the
// reference gateway's tokens are written as the fast one's before comparing.
import http from 'node:http'
import { ManualClock } from './manual-clock.ts'
import { parseConfig } from '../../lib/config.ts'
import { memoryLogger } from './memory-logger.ts'
import { manifest } from '../../functions/_manifest.gen.ts'
import { fetchAdapter } from '../../runtime/host/fetch-adapter.ts'
import { createHttpHost } from '../../runtime/host/http.ts'
import { buildRouter } from '../../runtime/host/router.ts'
import { buildServices, type Services } from '../../runtime/wiring/services.ts'

export interface Answer {
  status: number
  headers: Record<string, string | undefined>
  body: string
}

/** Headers whose values a client acts on; both hosts must send the same. */
export const headersThatMatter = ['content-type', 'content-length', 'cache-control', 'retry-after', 'etag', 'www-authenticate', 'location', 'allow']

export interface HostPair {
  fast: Services
  reference: Services
  /** Sends the request to both hosts; the reference answer has the fast gateway's tokens. */
  send(method: string, target: string, headers?: Record<string, string>, body?: string): Promise<{ fast: Answer; reference: Answer }>
  /** Presses both buttons and issues a token on both; returns the fast gateway's token. */
  issueToken(name: string): Promise<string>
  close(): Promise<void>
}

function request(port: number, method: string, target: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  // Sized, as clients send bodies (node would send a DELETE body unframed).
  if (body !== undefined) headers = { ...headers, 'content-length': String(Buffer.byteLength(body)) }
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: target, headers, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => {
        const kept: Record<string, string | undefined> = {}
        for (const name of headersThatMatter) kept[name] = res.headers[name] as string | undefined
        resolve({ status: res.statusCode ?? 0, headers: kept, body: Buffer.concat(chunks).toString('utf8') })
      })
    })
    // A refused upload may be cut short by either host; the answer is what counts.
    req.on('error', reject)
    req.end(body)
  })
}

async function gateway(start: string, configInput: Record<string, unknown>) {
  let next = 0
  const newUuid = () => `00000000-0000-4000-8000-${String(++next).padStart(12, '0')}`
  const config = parseConfig({ dataDir: '/nonexistent-test-data', deviceId: 'TG-DIFFERENTIAL', ...configInput })
  const clock = new ManualClock(start)
  const services = await buildServices({ config, clock, log: memoryLogger('warn').log, inMemory: true, newUuid })
  await services.radio.start()
  return services
}

/** `configInput`: gateway.config.json settings both gateways get (e.g. { v1: { basicAuth: true } }). */
export async function twoHosts(start = '2026-11-22T12:00:00Z', configInput: Record<string, unknown> = {}): Promise<HostPair> {
  const fast = await gateway(start, configInput)
  const reference = await gateway(start, configInput)
  const fastHost = createHttpHost(buildRouter(manifest, fast), fast.log)
  const fastPort = await fastHost.listen(0, '127.0.0.1')
  const adapter = fetchAdapter(buildRouter(manifest, reference))
  const referenceServer = http.createServer(adapter)
  await new Promise<void>((resolve) => referenceServer.listen(0, '127.0.0.1', resolve))
  const referencePort = (referenceServer.address() as { port: number }).port
  const tokens: [string, string][] = []

  const record = (fastAnswer: Answer, referenceAnswer: Answer) => {
    const issued = (answer: Answer) => /"token":"([0-9a-f]{48})"/.exec(answer.body)?.[1]
    const a = issued(fastAnswer)
    const b = issued(referenceAnswer)
    if (a && b) tokens.push([a, b])
  }
  const asFast = (text: string) => {
    for (const [a, b] of tokens) text = text.replaceAll(b, a).replaceAll(b.slice(0, 6), a.slice(0, 6))
    return text
  }
  const toReference = (text: string): string => {
    // v1 Basic credentials carry the token in base64 ("<token>:").
    if (/^Basic /i.test(text)) return `Basic ${Buffer.from(toReference(Buffer.from(text.slice(6), 'base64').toString('utf8'))).toString('base64')}`
    for (const [a, b] of tokens) text = text.replaceAll(a, b)
    return text
  }

  const send: HostPair['send'] = async (method, target, headers = {}, body) => {
    const fastAnswer = await request(fastPort, method, target, headers, body)
    const referenceHeaders = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, toReference(v)]))
    const referenceAnswer = await request(referencePort, method, target, referenceHeaders, body)
    record(fastAnswer, referenceAnswer)
    return { fast: fastAnswer, reference: { ...referenceAnswer, body: asFast(referenceAnswer.body) } }
  }

  return {
    fast,
    reference,
    send,
    issueToken: async (name) => {
      fast.button.press()
      reference.button.press()
      const { fast: answer } = await send('GET', `/api/v2/accesstoken/generate?name=${name}`)
      return (JSON.parse(answer.body) as { token: { token: string } }).token.token
    },
    close: async () => {
      await fastHost.close(100)
      referenceServer.closeAllConnections()
      await new Promise((resolve) => referenceServer.close(resolve))
      for (const services of [fast, reference]) {
        await services.radio.stop()
        await services.store.close()
        services.history.close()
      }
    },
  }
}
