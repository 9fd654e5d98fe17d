// `gateway fleet tail`: an operator's live view of what sites publish, read from the broker
// the config names. Prints one line per message: "<topic> <payload>".
import { randomBytes } from 'node:crypto'
import { connect as mqttConnect, type MqttClient } from 'mqtt'
import { connectionSecrets, type FleetConfig } from './config.ts'
import { classifyFailure } from './failure.ts'

export interface TailOptions {
  config: FleetConfig
  /** One site's topics; all sites ('+') when absent. */
  site?: string
  write: (line: string) => void
  /** Ends the tail (Ctrl-C). */
  signal: AbortSignal
}

export function tailFilter(prefix: string, site?: string): string {
  return `${prefix}/${site ?? '+'}/#`
}

/** Resolves when the signal aborts; rejects when the broker refuses who we are or TLS fails. */
export async function tailFleet({ config, site, write, signal }: TailOptions): Promise<void> {
  if (!config.brokerUrl) throw new Error('fleet.brokerUrl is not set in the config')
  if (site !== undefined && !/^[^/+#\u0000]+$/.test(site)) throw new Error(`--site: "${site}" is not a site id`)
  const filter = tailFilter(config.topicPrefix, site)
  const client: MqttClient = mqttConnect(config.brokerUrl, {
    clientId: `tracker-gateway-tail-${randomBytes(4).toString('hex')}`,
    clean: true,
    reconnectPeriod: 1000,
    connectTimeout: 10_000,
    ...Object.fromEntries(Object.entries(connectionSecrets(config)).filter(([, v]) => v !== undefined)),
  })
  try {
    await new Promise<void>((resolve, reject) => {
      const finish = () => resolve()
      if (signal.aborted) return finish()
      signal.addEventListener('abort', finish, { once: true })
      client.on('connect', () => {
        client.subscribe(filter, { qos: 1 }, (error) => {
          if (error) reject(error)
          else write(`# subscribed to ${filter} on ${config.brokerUrl}`)
        })
      })
      client.on('message', (topic, payload) => write(`${topic} ${payload.toString('utf8')}`))
      client.on('error', (error) => {
        const failure = classifyFailure(error)
        if (failure.kind === 'down') write(`# ${failure.message}; retrying`)
        else reject(new Error(`${failure.kind}: ${failure.message}`))
      })
    })
  } finally {
    await client.endAsync(true).catch(() => undefined)
  }
}
