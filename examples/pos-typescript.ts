// A POS with the TypeScript client (clients/typescript): start an order, page it, receive the
// signed webhook of the page, clear it. Against a gateway with the simulated radio, whose
// simulator stands in for the guest who takes a tracker at the starter unit.
//
//   GATEWAY_URL=http://gateway.local:8000 GATEWAY_TOKEN=<48 hex> node examples/pos-typescript.ts
//
// The webhook receiver listens on WEBHOOK_HOST (default 127.0.0.1) on a free port; the gateway
// must be able to reach it (a loopback receiver needs webhooks.allowLoopback). Prints one line
// per step.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { posClient, verifyWebhook, type OrderWebhook } from '../clients/typescript/src/client.ts'

const baseUrl = process.env.GATEWAY_URL ?? 'http://127.0.0.1:8000'
const token = process.env.GATEWAY_TOKEN ?? ''
const pos = posClient({ baseUrl, token })
const say = (line: string) => console.log(line)

// 1. The webhook receiver: verify every delivery before trusting it.
let secret = ''
const deliveries: OrderWebhook[] = []
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = []
  req.on('data', (chunk: Buffer) => chunks.push(chunk))
  req.on('end', () => {
    try {
      deliveries.push(verifyWebhook(secret, Buffer.concat(chunks).toString('utf8'), req.headers))
      res.writeHead(204).end()
    } catch {
      res.writeHead(400).end() // not signed by our gateway
    }
  })
})
await new Promise<void>((resolve) => receiver.listen(0, process.env.WEBHOOK_HOST ?? '127.0.0.1', resolve))
const hook = `http://${process.env.WEBHOOK_HOST ?? '127.0.0.1'}:${(receiver.address() as AddressInfo).port}/hook`
const registered = await pos.registerWebhook(hook)
secret = registered.webhook.secret ?? ''
say(`webhook registered: ${registered.webhook.url}`)

// 2. A guest takes tracker 7 at the starter unit (the simulator), which starts order 7.
const started = await pos.api.POST('/api/v2/simulator/start', { body: { tracker: 7 } })
if (!started.data) throw new Error(`simulator: ${JSON.stringify(started.error)}`)
say('order 7 started at the starter unit')

// 3. The kitchen is done: page the guest.
const paged = await pos.page(7)
say(`order ${paged.name} paged: ${paged.paged}`)

// 4. The signed webhook of the page arrives.
const deadline = Date.now() + 30_000
while (!deliveries.some((d) => d.name === '7' && d.changeType === 'ORDER_PAGED')) {
  if (Date.now() > deadline) throw new Error('no ORDER_PAGED webhook within 30 s')
  await new Promise((resolve) => setTimeout(resolve, 50))
}
say('webhook received and verified: ORDER_PAGED for order 7')

// 5. The guest picked it up: clear the order.
const cleared = await pos.clear(7)
say(`order ${cleared.name} cleared`)
receiver.close()
