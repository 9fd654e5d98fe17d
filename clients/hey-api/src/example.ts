// A POS with the @hey-api/openapi-ts client generated from the gateway's document: start an
// order (the simulator's starter unit stands in for the guest), page it, list the active orders,
// clear it, read the history with limit: 10. Prints one line per step.
//
//   npm run generate && npx tsc -p . && GATEWAY_URL=http://gateway.local:8000 GATEWAY_TOKEN=<48 hex> node dist/example.js
import { client } from './generated/client.gen.js'
import { v2ActiveordersGet, v2ActiveordersIdDelete, v2ActiveordersIdPagePost, v2OrdersGet, v2SimulatorStartPost } from './generated/sdk.gen.js'

declare const process: { env: Record<string, string | undefined> }
declare const console: { log(line: string): void }

client.setConfig({ baseUrl: process.env.GATEWAY_URL ?? 'http://127.0.0.1:8000', headers: { Authorization: `Bearer ${process.env.GATEWAY_TOKEN ?? ''}` } })

const started = await v2SimulatorStartPost({ body: { tracker: 9 }, throwOnError: true })
console.log(`started: ${started.response.status}`)

const paged = await v2ActiveordersIdPagePost({ path: { id: '9' }, throwOnError: true })
console.log(`order ${paged.data.activeorder.name} paged: ${paged.data.activeorder.paged}`)

const active = await v2ActiveordersGet({ throwOnError: true })
console.log(`active orders: ${active.data.count}`)

const cleared = await v2ActiveordersIdDelete({ path: { id: '9' }, throwOnError: true })
console.log(`order ${cleared.data.activeorder.name} ${cleared.data.activeorder.state}`)

const history = await v2OrdersGet({ query: { limit: 10 }, throwOnError: true })
console.log(`history: ${history.data.items.length} of ${history.data.count}`)
