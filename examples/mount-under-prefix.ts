// Mounting the gateway's API under /gateway of an existing node:http server, through the
// @whatwg-node/server adapter (runtime/host/fetch-adapter.ts). The server keeps answering its own
// paths; /gateway/api/v2/... is the gateway's /api/v2/....
//
//   node examples/mount-under-prefix.ts [port]     (prints {"port":N,"token":"..."} once listening)
//
// The services here keep their data in memory and use the simulated radio; a real embedding
// passes its own config (loadConfig() reads gateway.config.json) and starts the radio,
// scheduler and other parts as runtime/wiring/main.ts does.
import http from 'node:http'
import { SystemClock } from '../lib/kernel/clock.ts'
import { parseConfig } from '../lib/config.ts'
import { createLogger } from '../lib/kernel/log.ts'
import { createGatewayAdapter } from '../runtime/host/fetch-adapter.ts'
import { buildServices } from '../runtime/wiring/services.ts'

const config = parseConfig({ dataDir: '/nonexistent-example-data', radio: { kind: 'simulated' } })
const services = await buildServices({ config, clock: new SystemClock(), log: createLogger({ level: 'warn' }), inMemory: true })
await services.radio.start()
const gateway = await createGatewayAdapter(services, { prefix: '/gateway' })

const server = http.createServer((req, res) => {
  if (req.url === '/gateway' || req.url?.startsWith('/gateway/')) return void gateway(req, res)
  res.writeHead(200, { 'content-type': 'text/plain' })
  res.end('the existing application\n')
})

server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', async () => {
  // An access token for trying the API (a real gateway issues them after a button press).
  const { token } = await services.tokens.issue('example')
  const address = server.address()
  console.log(JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0, token }))
})

const stop = async () => {
  server.close()
  await services.radio.stop()
  await services.store.close()
  process.exit(0)
}
process.on('SIGTERM', () => void stop())
process.on('SIGINT', () => void stop())
