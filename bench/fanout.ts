// The WebSocket part of `npm run bench`: how long an order change takes to reach each of
// many subscribers (bench/run.ts measures the gateway and the bare server with it).
import http from 'node:http'
import { WebSocket } from 'ws'

const round = (n: number, digits = 2) => Number(n.toFixed(digits))

export interface Fanout {
  subscribers: number
  events: number
  deliveries: number
  missing: number
  p50Ms: number
  p99Ms: number
  maxMs: number
}

/**
 * Connects `size.subscribers` authenticated subscribers, then creates `size.events` orders
 * one every 20 ms; each subscriber timestamps each event frame. Delivery time = arrival minus
 * the moment the creating request was sent (same clock: all in this process).
 */
/**
 * `tokens`: the subscribers take them in turn (a gateway holds at most 32 subscribers per
 * token, docs/api.md "Fair shares"); the first also creates the orders.
 */
export async function fanout(port: number, tokens: string[], firstName: number, size: { subscribers: number; events: number }): Promise<Fanout> {
  const token = tokens[0]!
  const { subscribers: subscriberCount, events: eventCount } = size
  const sockets: WebSocket[] = []
  const arrivals: number[][] = []
  try {
    for (let i = 0; i < subscriberCount; i++) {
      const socket = new WebSocket(`ws://127.0.0.1:${port}/api/v2/websocket`, { perMessageDeflate: false })
      const mine: number[] = []
      arrivals.push(mine)
      sockets.push(socket)
      await new Promise<void>((resolve, reject) => {
        socket.once('error', reject)
        // A refused subscriber is closed before its snapshot: say so rather than wait for ever.
        socket.once('close', (code, reason) => reject(new Error(`subscriber ${i} closed before its snapshot: ${code} ${reason}`)))
        socket.once('open', () => socket.send(JSON.stringify({ accesstoken: tokens[i % tokens.length] })))
        socket.on('message', (data) => {
          const at = performance.now()
          const type = (JSON.parse(data.toString()) as { type?: string }).type
          if (type === 'ACTIVE_ORDERS') resolve()
          else mine.push(at)
        })
      })
    }
    const sentAt: number[] = []
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    for (let k = 0; k < eventCount; k++) {
      const began = performance.now()
      sentAt.push(began)
      await new Promise<void>((resolve, reject) => {
        const body = JSON.stringify({ name: firstName + k, orderType: 'TO_GO' })
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/api/v2/activeorders',
            agent,
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          },
          (res) => {
            res.resume()
            res.on('end', resolve)
          },
        )
        req.on('error', reject)
        req.end(body)
      })
      const wait = 20 - (performance.now() - began)
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
    }
    await new Promise((resolve) => setTimeout(resolve, 500))
    agent.destroy()
    const latencies: number[] = []
    let missing = 0
    for (const mine of arrivals) {
      missing += Math.max(0, eventCount - mine.length)
      for (let k = 0; k < Math.min(eventCount, mine.length); k++) latencies.push(mine[k] - sentAt[k])
    }
    latencies.sort((a, b) => a - b)
    const at = (p: number) => round(latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN)
    return {
      subscribers: subscriberCount,
      events: eventCount,
      deliveries: latencies.length,
      missing,
      p50Ms: at(0.5),
      p99Ms: at(0.99),
      maxMs: round(latencies.at(-1) ?? NaN),
    }
  } finally {
    for (const socket of sockets) socket.terminate()
  }
}
