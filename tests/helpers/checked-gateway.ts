// startGateway (runtime/wiring/main.ts) for a test that reaches the gateway over real HTTP:
// every answer the test then fetches from it is held to the OpenAPI document
// (./checked-origins.ts) until it stops. A gateway given a route table of the test's own
// (options.manifest) does not serve the tree's document, so its answers are not checked.
import { isIP } from 'node:net'
import { type GatewayOptions, type RunningGateway, startGateway } from '../../runtime/wiring/main.ts'
import { checkAnswersFrom } from './checked-origins.ts'

/** The address a test reaches a gateway on: loopback when it listens on every address. */
function reachedAt(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1'
  return isIP(host) === 6 ? `[${host}]` : host
}

export async function startCheckedGateway(options: GatewayOptions): Promise<RunningGateway> {
  const gateway = await startGateway(options)
  if (options.manifest) return gateway
  const unchecked = checkAnswersFrom(`http://${reachedAt(options.config.host)}:${gateway.port}`)
  const stop = gateway.stop.bind(gateway)
  gateway.stop = async () => {
    unchecked()
    await stop()
  }
  return gateway
}
