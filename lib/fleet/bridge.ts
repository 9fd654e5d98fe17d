// The link to the fleet's MQTT broker. One mqtt.js client per connection attempt, with the
// library's own reconnect and in-memory resend turned off: after any drop the outbox is
// replayed from its oldest entry, so what reaches the broker is always in seq order (what
// was in flight may arrive twice, with the same seq). Reconnects back off on the Clock.
// With a replay window it also listens to headquarters' replay requests (lib/fleet/replay.ts)
// and publishes what they ask for again, beside the outbox's own order.
import { connect as mqttConnect, type IClientOptions, type MqttClient } from 'mqtt'
import type { Clock, TimerHandle } from '../kernel/clock.ts'
import type { Logger } from '../kernel/log.ts'
import { connectionSecrets, fleetTopics, type FleetConfig, type FleetTopics } from './config.ts'
import { classifyFailure, type ClassifiedFailure } from './failure.ts'
import type { FleetChannel, FleetOutbox } from './outbox.ts'
import type { FleetReplayer } from './replay.ts'
import type { FleetState, FleetStatus } from './types.ts'
export type { FleetState, FleetStatus } from './types.ts'

export interface FleetBridgeOptions {
  config: FleetConfig
  siteId: string
  outbox: FleetOutbox
  clock: Clock
  log: Logger
  /** The body of the retained status message; `online: false` for the last will and stop. */
  statusPayload: (online: boolean, reason?: string) => Record<string, unknown>
  /** Changes published per round trip (each awaited before the next batch). */
  batchSize?: number
  /** Serves headquarters' replay requests (none: the replay topic is not subscribed). */
  replayer?: FleetReplayer
  /** Headquarters' rollout commands (retained, on the rollout topic; none: not subscribed). */
  onRollout?: (payload: Buffer) => void
  /** The connection to the broker is lost (what was heard from HQ may have changed since). */
  onDisconnected?: () => void
  connect?: (url: string, options: IClientOptions) => MqttClient
}

interface Connection {
  client: MqttClient
  connected: boolean
  /** Rejects when this connection closes, so a publish in flight never hangs the drain. */
  closed: Promise<never>
}

export class FleetBridge {
  readonly #options: FleetBridgeOptions
  readonly #topics: FleetTopics
  #state: FleetState = 'connecting'
  #lastError: string | null = null
  #connection: Connection | null = null
  #failure: ClassifiedFailure | null = null
  #attempts = 0
  #retryTimer: TimerHandle | undefined
  #statusTimer: TimerHandle | undefined
  #stopped = true
  #draining = false
  #again = false
  #idle: Promise<void> = Promise.resolve()
  /** The backlog the last status message announced. */
  #announcedBacklog = 0

  constructor(options: FleetBridgeOptions) {
    this.#options = options
    this.#topics = fleetTopics(options.config.topicPrefix, options.siteId)
  }

  get topics(): FleetTopics {
    return this.#topics
  }

  status(): FleetStatus {
    return {
      state: this.#state,
      backlog: this.#options.outbox.backlog,
      lastError: this.#lastError,
      lastPublishedSeq: this.#options.outbox.lastPublishedSeq,
    }
  }

  start(): void {
    if (!this.#stopped) return
    this.#stopped = false
    this.#state = 'connecting'
    this.#open()
  }

  /** A new entry is in the outbox: publish it now when connected. */
  notify(): void {
    const connection = this.#connection
    if (connection?.connected) void this.#drain(connection)
  }

  /** What the status message says changed: the retained status is published again now when connected. */
  statusChanged(): void {
    const connection = this.#connection
    if (connection?.connected) this.#publishStatus(connection)
  }

  /** Marks the site offline (retained) when the broker is reachable, then disconnects. */
  async stop(): Promise<void> {
    if (this.#stopped) return
    this.#stopped = true
    this.#options.clock.clearTimeout(this.#retryTimer)
    this.#options.clock.clearTimeout(this.#statusTimer)
    const connection = this.#connection
    this.#connection = null
    if (connection?.connected) {
      await this.#withTimeout(
        connection,
        connection.client.publishAsync(this.#topics.status, JSON.stringify(this.#options.statusPayload(false, 'stopped')), {
          qos: 1,
          retain: true,
        }),
        2000,
      ).catch(() => undefined)
    }
    if (connection) await connection.client.endAsync(true).catch(() => undefined)
    await this.#idle
  }

  #open(): void {
    const { config, log } = this.#options
    let client: MqttClient
    try {
      const secrets = connectionSecrets(config)
      const options: IClientOptions = {
        clientId: `tracker-gateway-${this.#options.siteId}`.slice(0, 64),
        clean: true,
        protocolVersion: 4,
        reconnectPeriod: 0,
        connectTimeout: 10_000,
        keepalive: 30,
        rejectUnauthorized: true,
        will: {
          topic: this.#topics.status,
          payload: Buffer.from(JSON.stringify(this.#options.statusPayload(false, 'connection lost'))),
          qos: 1,
          retain: true,
        },
        ...withoutUndefined(secrets),
      }
      client = (this.#options.connect ?? mqttConnect)(config.brokerUrl as string, options)
    } catch (error) {
      this.#fail(classifyFailure(error))
      this.#scheduleRetry()
      return
    }
    let markClosed!: (error: Error) => void
    const closed = new Promise<never>((_resolve, reject) => {
      markClosed = reject
    })
    closed.catch(() => undefined)
    const connection: Connection = { client, connected: false, closed }
    this.#connection = connection
    // Never removed: an 'error' event without a listener would crash the gateway.
    client.on('error', (error) => {
      const failure = classifyFailure(error)
      if (connection === this.#connection) this.#failure = failure
      log.debug({ err: error, fleet: failure.kind }, 'fleet broker connection error')
    })
    client.on('connect', () => {
      if (connection !== this.#connection) return
      connection.connected = true
      this.#attempts = 0
      this.#failure = null
      this.#state = 'connected'
      this.#lastError = null
      log.info({ broker: config.brokerUrl, siteId: this.#options.siteId }, 'fleet broker connected')
      this.#publishStatus(connection)
      this.#drain(connection)
      if (this.#options.replayer) this.#listenForReplays(connection)
      if (this.#options.onRollout) this.#listenForRollouts(connection, this.#options.onRollout)
    })
    client.on('close', () => {
      markClosed(new Error('connection closed'))
      if (connection !== this.#connection) return
      this.#connection = null
      this.#options.clock.clearTimeout(this.#statusTimer)
      client.end(true)
      this.#options.onDisconnected?.()
      if (this.#stopped) return
      this.#fail(this.#failure ?? { kind: 'down', message: 'connection to the broker closed' })
      this.#scheduleRetry()
    })
  }

  #fail(failure: ClassifiedFailure): void {
    // Logged when the state changes, not at every retry of a broker that stays away.
    if (this.#state !== failure.kind) {
      this.#options.log.warn({ fleet: failure.kind, reason: failure.message }, 'fleet broker unreachable; changes are kept in the outbox')
    }
    this.#state = failure.kind
    this.#lastError = failure.message
    this.#failure = null
  }

  #scheduleRetry(): void {
    if (this.#stopped) return
    const { reconnectMs, maxReconnectMs } = this.#options.config
    const delay = Math.min(maxReconnectMs, reconnectMs * 2 ** Math.min(this.#attempts, 20))
    this.#attempts++
    this.#retryTimer = this.#options.clock.setTimeout(() => {
      if (!this.#stopped) this.#open()
    }, delay)
  }

  #publishStatus(connection: Connection): void {
    const { clock, config, statusPayload } = this.#options
    clock.clearTimeout(this.#statusTimer)
    this.#announcedBacklog = this.#options.outbox.backlog
    connection.client.publish(this.#topics.status, JSON.stringify(statusPayload(true)), { qos: 1, retain: true }, () => {})
    this.#statusTimer = clock.setTimeout(() => {
      if (connection === this.#connection && connection.connected) this.#publishStatus(connection)
    }, config.statusIntervalMs)
  }

  #drain(connection: Connection): void {
    this.#again = true
    if (this.#draining) return
    this.#draining = true
    this.#idle = this.#drainLoop(connection).finally(() => {
      this.#draining = false
      // A connection that came up while the old one was still draining starts its own round.
      const current = this.#connection
      if (current && current !== connection && current.connected) this.#drain(current)
    })
  }

  async #drainLoop(connection: Connection): Promise<void> {
    const { outbox, log } = this.#options
    const batchSize = this.#options.batchSize ?? 50
    let published = 0
    try {
      while (connection === this.#connection && connection.connected) {
        this.#again = false
        const batch = await outbox.head(batchSize)
        if (!batch.length) {
          if (this.#again) continue
          break
        }
        const acks = batch.flatMap((entry) =>
          entry.messages.map((message) => connection.client.publishAsync(this.#topic(message.channel), message.payload, { qos: 1 })),
        )
        await Promise.race([Promise.all(acks), connection.closed])
        await outbox.acknowledged(batch.map((entry) => entry.seq))
        published += batch.length
      }
      // After a catch-up, say so at once rather than at the next periodic refresh.
      if (published && this.#announcedBacklog > 0 && connection === this.#connection) this.#publishStatus(connection)
    } catch (error) {
      if (connection !== this.#connection) return
      // Start over on a fresh connection from the oldest unacknowledged change.
      log.warn({ err: error }, 'fleet publish failed; reconnecting')
      connection.client.end(true)
    }
  }

  #listenForReplays(connection: Connection): void {
    const { log } = this.#options
    const replayTopic = this.#topics.replay
    connection.client.on('message', (topic, payload) => {
      if (topic === replayTopic && connection === this.#connection) this.#replay(connection, payload)
    })
    // A broker whose ACL does not let the site read it may refuse the subscription (EMQX;
    // Mosquitto grants it and delivers nothing): the site publishes as before, it only
    // cannot replay.
    connection.client.subscribe(replayTopic, { qos: 1 }, (error, granted) => {
      if (error || granted?.some((g) => g.qos === 128))
        log.warn({ topic: replayTopic, err: error }, 'fleet: the broker refused the replay subscription; headquarters cannot ask this site to replay')
    })
  }

  #listenForRollouts(connection: Connection, handler: (payload: Buffer) => void): void {
    const topic = this.#topics.rollout
    connection.client.on('message', (received, payload) => {
      // Empty: HQ cleared the retained command.
      if (received === topic && connection === this.#connection && payload.length) handler(payload)
    })
    connection.client.subscribe(topic, { qos: 1 }, (error, granted) => {
      if (error || granted?.some((g) => g.qos === 128))
        this.#options.log.warn({ topic, err: error }, 'fleet: the broker refused the rollout subscription; headquarters cannot upgrade this site')
    })
  }

  #replay(connection: Connection, payload: Buffer): void {
    const { log } = this.#options
    const publish = (entry: { messages: { channel: FleetChannel; payload: string }[] }) =>
      Promise.race([
        Promise.all(entry.messages.map((m) => connection.client.publishAsync(this.#topic(m.channel), m.payload, { qos: 1 }))),
        connection.closed,
      ]).then(() => undefined)
    this.#options
      .replayer!.serve(payload, publish)
      .then((outcome) => {
        if (!outcome.served) {
          log.warn({ reason: outcome.reason }, 'fleet: replay request not served')
          return
        }
        log.info(
          { ...outcome.request, replayed: outcome.entries, firstSeq: outcome.firstSeq, lastSeq: outcome.lastSeq, replayAfter: outcome.replayAfter },
          'fleet: replayed for headquarters',
        )
        // The status says what can still be replayed (replayAfter): headquarters learns at once.
        if (connection === this.#connection && connection.connected) this.#publishStatus(connection)
      })
      .catch((error: unknown) => log.warn({ err: error }, 'fleet: replay interrupted'))
  }

  #topic(channel: FleetChannel): string {
    return channel === 'events' ? this.#topics.events : this.#topics.history
  }

  #withTimeout<T>(connection: Connection, promise: Promise<T>, ms: number): Promise<T> {
    let timer: TimerHandle | undefined
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = this.#options.clock.setTimeout(() => reject(new Error('timed out')), ms)
    })
    return Promise.race([promise, timeout, connection.closed]).finally(() => this.#options.clock.clearTimeout(timer))
  }
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>
}
