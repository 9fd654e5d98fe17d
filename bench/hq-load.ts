// The lunch-peak load for `npm run bench:hq`, in its own process (so the probe's timing in
// the parent is not delayed by it): SITES simulated restaurants, one MQTT connection each
// (as each gateway's bridge has), publishing RATE changes per second in all, rendered by the
// gateway's fleet renderer (bench/hq-sites.ts), for SECONDS. Each site cycles through its
// orders: created, put on a table, cleared (with its summary). Prints one JSON line with
// what was published when done.
import { connect, type MqttClient } from 'mqtt'
import { SimulatedSite } from './hq-sites.ts'

const brokerUrl = process.env.BROKER_URL!
const sites = Number(process.env.SITES ?? 1000)
const rate = Number(process.env.RATE ?? 5000)
const seconds = Number(process.env.SECONDS ?? 60)
const prefix = process.env.PREFIX ?? 'chain'
/** Changes of one more site, back after days: published from the start as its bridge does (50 changes per round trip). */
const backlogChanges = Number(process.env.BACKLOG ?? 0)
const tickMs = 50

interface Restaurant {
  site: SimulatedSite
  client: MqttClient
  open: string[]
  step: number
}

const restaurants: Restaurant[] = []
for (let i = 0; i < sites; i++) {
  const site = new SimulatedSite(`site-${String(i).padStart(4, '0')}`, { prefix })
  const client = connect(brokerUrl, { clientId: `tracker-gateway-${site.siteId}`, protocolVersion: 4, reconnectPeriod: 1000 })
  client.on('error', () => undefined)
  restaurants.push({ site, client, open: [], step: 0 })
}
await Promise.all(restaurants.map((r) => (r.client.connected ? undefined : new Promise((resolve) => r.client.once('connect', resolve)))))
await Promise.all(restaurants.map((r) => r.client.publishAsync(r.site.status(true).topic, r.site.status(true).payload, { qos: 1, retain: true })))
process.stdout.write(`${JSON.stringify({ ready: true })}\n`)

let changes = 0
let messages = 0
let inFlight = 0
let next = 0
const started = Date.now()
const publish = (r: Restaurant, out: { topic: string; payload: string }[]) => {
  for (const m of out) {
    inFlight++
    messages++
    r.client.publish(m.topic, m.payload, { qos: 1 }, () => void inFlight--)
  }
}

const catchUp = (async () => {
  if (!backlogChanges) return
  const back = new SimulatedSite('site-back', { prefix })
  const client = connect(brokerUrl, { clientId: 'tracker-gateway-site-back', protocolVersion: 4 })
  await new Promise((resolve) => client.once('connect', resolve))
  const day = 86_400_000
  let at = Date.now() - 3 * day
  const startedAt = Date.now()
  while (back.seq < backlogChanges) {
    const batch = []
    while (batch.length < 50 * 1.4 && back.seq < backlogChanges) {
      batch.push(...back.fullOrder(at, 300, 900))
      at += 60_000
    }
    await Promise.all(batch.map((m) => client.publishAsync(m.topic, m.payload, { qos: 1 })))
  }
  process.stdout.write(`${JSON.stringify({ backlogPublished: true, changes: back.seq, ms: Date.now() - startedAt })}\n`)
  await client.endAsync()
})()

await new Promise<void>((resolve) => {
  const timer = setInterval(() => {
    const elapsed = (Date.now() - started) / 1000
    if (elapsed >= seconds) {
      clearInterval(timer)
      resolve()
      return
    }
    // Changes due by now; publishing never runs ahead of the schedule.
    const due = Math.floor(elapsed * rate) - changes
    for (let n = 0; n < due; n++) {
      const r = restaurants[next++ % restaurants.length]!
      const now = Date.now()
      // Two orders in progress per site at a time, each: created, on a table, cleared.
      if (r.open.length < 2) {
        const { order, messages: out } = r.site.create(now)
        r.open.push(order.uuid)
        publish(r, out)
      } else if (r.step++ % 2 === 0) {
        publish(r, r.site.locate(r.open[0]!, 1 + (r.step % 30), now))
      } else {
        publish(r, r.site.clear(r.open.shift()!, now))
      }
      changes++
    }
  }, tickMs)
})
await catchUp
const waitStarted = Date.now()
while (inFlight > 0 && Date.now() - waitStarted < 60_000) await new Promise((resolve) => setTimeout(resolve, 50))
const totalSeq = restaurants.reduce((sum, r) => sum + r.site.seq, 0)
process.stdout.write(`${JSON.stringify({ done: true, changes, messages, totalSeq, seconds: (Date.now() - started) / 1000, unacked: inFlight })}\n`)
await Promise.all(restaurants.map((r) => r.client.endAsync()))
process.exit(0)
