// Headquarters' ingest: a persistent MQTT subscription (this instance's own, or a shared one
// with shared: true) to every site's events, history and status, applied to PostgreSQL in
// batches. A message is acknowledged to the
// broker only after the transaction that applied it has committed, so an instance that dies
// loses nothing: the broker sends what it had not acknowledged again (to this instance's
// session when it comes back). Applying is idempotent (lib/hq/apply.ts), so what is sent
// twice is stored once.
import { readFileSync } from 'node:fs'
import { connect as mqttConnect, type IClientOptions, type ISubscriptionMap, type MqttClient } from 'mqtt'
import type { Logger } from '../kernel/log.ts'
import { type Database, retryableCodes } from '../store/postgres.ts'
import { AckHolder, type HeldAck } from './ack-holder.ts'
import { applyBatch, clearedInstants, type ApplyResult } from './apply.ts'
import { PendingChains, storeChains } from './chain.ts'
import { siteTimezone, type HqConfig } from './config.ts'
import { parseSiteMessage, type SiteMessage } from './messages.ts'
import { Partitions } from './schema.ts'

export type IngestConfig = Pick<
  HqConfig,
  'broker' | 'topicPrefix' | 'instanceId' | 'shareGroup' | 'shared' | 'batchSize' | 'batchWaitMs' | 'timezone' | 'siteTimezones' | 'targetSeconds'
>

/** What this instance committed of one site since it started (its /metrics). */
export interface SiteIngest {
  applied: number
  /**
   * Seconds from the site's change (a status's at; the stateStartedAt of an event that
   * begins a state, so that instant is the change's own) to the commit
   * of the batch holding the site's newest message: how far behind the site HQ was then.
   */
  lagSeconds: number | null
}

/** Events whose stateStartedAt is when the change happened (a page or a table change keeps an older one). */
const stateChanges = new Set(['ORDER_CREATED', 'ORDER_CLEARED'])

export interface IngestStatus {
  connected: boolean
  /** The broker confirmed the subscriptions on the current connection. */
  subscribed: boolean
  /** Messages received and not yet committed. */
  pending: number
  applied: { events: number; history: number; statuses: number; batches: number }
  rejected: number
  lastError: string | null
}

interface Received {
  message: SiteMessage | undefined
  ack: HeldAck
}

export interface IngestOptions {
  config: IngestConfig
  db: Database
  log: Logger
  /** Called after each committed batch (tests, metrics). */
  onCommit?: (result: ApplyResult) => void
  connect?: (url: string, options: IClientOptions) => MqttClient
  /** How often the spans of committed batches are stored in the sites' chains (chain.ts). */
  chainIntervalMs?: number
}

export function subscriptions(config: Pick<HqConfig, 'shareGroup' | 'topicPrefix' | 'shared'>): string[] {
  const share = config.shared ? `$share/${config.shareGroup}/` : ''
  return ['events', 'history', 'status'].map((channel) => `${share}${config.topicPrefix}/+/${channel}`)
}

export class Ingest {
  readonly #options: IngestOptions
  readonly #partitions = new Partitions()
  #client: MqttClient | undefined
  #holder: AckHolder | undefined
  #queue: Received[] = []
  /** Messages of the batch being applied (taken off the queue, not yet committed). */
  #applying = 0
  #timer: NodeJS.Timeout | undefined
  #running: Promise<void> | undefined
  #stopped = false
  #lastError: string | null = null
  #subscribed = false
  #rejected = 0
  readonly #applied = { events: 0, history: 0, statuses: 0, batches: 0 }
  readonly #sites = new Map<string, SiteIngest>()
  /** Committed and not yet stored in the chains (lib/hq/chain.ts). */
  readonly #chains = new PendingChains()
  #chainTimer: NodeJS.Timeout | undefined
  #storingChains: Promise<void> | undefined

  constructor(options: IngestOptions) {
    this.#options = options
  }

  status(): IngestStatus {
    return {
      connected: this.#client?.connected ?? false,
      subscribed: this.#subscribed && (this.#client?.connected ?? false),
      pending: this.#queue.length + this.#applying,
      applied: { ...this.#applied },
      rejected: this.#rejected,
      lastError: this.#lastError,
    }
  }

  /** Per site: messages committed by this instance and the lag of its newest one. */
  sites(): ReadonlyMap<string, Readonly<SiteIngest>> {
    return this.#sites
  }

  #noteSites(messages: SiteMessage[], committedAt: number): void {
    for (const message of messages) {
      let site = this.#sites.get(message.siteId)
      if (!site) this.#sites.set(message.siteId, (site = { applied: 0, lagSeconds: null }))
      site.applied++
      const changedAt =
        message.kind === 'status' ? message.at : message.kind === 'event' && stateChanges.has(message.change) ? message.stateStartedAt : undefined
      if (changedAt !== undefined) site.lagSeconds = Math.max(0, (committedAt - Date.parse(changedAt)) / 1000)
    }
  }

  start(): void {
    const { config, log } = this.#options
    const broker = config.broker
    const connect = this.#options.connect ?? mqttConnect
    const client = connect(broker.url, {
      clientId: `hq-${config.instanceId}`,
      // A persistent session (MQTT 3.1.1: it lasts until the broker expires it): what the
      // sites publish while this instance is down waits for it, and so does what it had not
      // acknowledged when it died.
      protocolVersion: 4,
      clean: false,
      reconnectPeriod: 1000,
      connectTimeout: 10_000,
      username: broker.username,
      password: broker.password,
      ca: broker.ca ? readFileSync(broker.ca) : undefined,
      cert: broker.cert ? readFileSync(broker.cert) : undefined,
      key: broker.key ? readFileSync(broker.key) : undefined,
      // The library's own resend queue would replay our late acks out of context.
      queueQoSZero: false,
    })
    this.#client = client
    this.#holder = new AckHolder(client)
    this.#chainTimer = setInterval(() => void this.storeChains(), this.#options.chainIntervalMs ?? 5000)
    this.#chainTimer.unref()
    client.handleMessage = (packet, callback) => {
      if (packet.cmd === 'publish' && packet.qos === 1 && packet.messageId !== undefined) {
        this.#receive(packet.topic, packet.payload as Buffer, this.#holder!.hold(packet.messageId))
      }
      callback()
    }
    client.on('error', (error) => {
      this.#lastError = `broker: ${error.message}`
      log.warn({ err: error }, 'hq ingest: broker error')
    })
    client.on('close', () => (this.#subscribed = false))
    client.on('connect', (connack) => {
      this.#lastError = null
      // Subscribed again on every connect, session kept or not: Mosquitto 2.0 does not
      // restore a persisted session's shared subscriptions after a restart (what sites
      // publish before this would reach nobody). Subscribing again to the same filter keeps
      // what the session holds. `resubscribe: true` makes mqtt.js send it although it
      // believes the session still has it.
      const filters = Object.assign(Object.fromEntries(subscriptions(config).map((filter) => [filter, { qos: 1 as const }])), {
        resubscribe: true,
      }) as ISubscriptionMap
      client.subscribe(filters, (error) => {
        if (error) log.error({ err: error }, 'hq ingest: subscribe failed')
        else {
          this.#subscribed = true
          log.info({ filters: subscriptions(config) }, 'hq ingest: subscribed')
        }
      })
      log.info({ sessionPresent: connack.sessionPresent }, 'hq ingest: connected')
    })
  }

  /** Resolves once connected to the broker (start() does not wait: HQ serves with the broker down). */
  connected(): Promise<void> {
    const client = this.#client
    if (!client) return Promise.reject(new Error('ingest not started'))
    return client.connected ? Promise.resolve() : new Promise((resolve) => client.once('connect', () => resolve()))
  }

  #receive(topic: string, payload: Buffer, ack: HeldAck): void {
    const parsed = parseSiteMessage(this.#options.config.topicPrefix, topic, payload)
    if (!parsed.ok) {
      this.#rejected++
      this.#options.log.warn({ reason: parsed.reason }, 'hq ingest: message rejected')
    }
    this.#queue.push({ message: parsed.ok ? parsed.message : undefined, ack })
    if (this.#queue.length >= this.#options.config.batchSize) this.#kick()
    else this.#timer ??= setTimeout(() => this.#kick(), this.#options.config.batchWaitMs)
  }

  #kick(): void {
    clearTimeout(this.#timer)
    this.#timer = undefined
    this.#running ??= this.#drain().finally(() => {
      this.#running = undefined
      if (this.#queue.length && !this.#stopped) this.#kick()
    })
  }

  async #drain(): Promise<void> {
    while (this.#queue.length && !this.#stopped) {
      const batch = this.#queue.splice(0, this.#options.config.batchSize)
      this.#applying = batch.length
      try {
        if (await this.#commit(batch)) this.#holder!.release(batch.map((r) => r.ack))
      } finally {
        this.#applying = 0
      }
    }
  }

  /** Applies a batch, trying again (with back-off) until it commits (true) or the ingest stops. */
  async #commit(batch: Received[]): Promise<boolean> {
    const { db, log, config } = this.#options
    const messages = batch.flatMap((r) => (r.message ? [r.message] : []))
    if (!messages.length) return true
    const options = { timezoneOf: (site: string) => siteTimezone(config, site), targetSeconds: config.targetSeconds }
    for (let attempt = 0; !this.#stopped; attempt++) {
      try {
        await this.#partitions.ensure(db, clearedInstants(messages))
        const result = await db.transaction((tx) => applyBatch(tx, messages, options))
        this.#applied.events += result.events
        this.#applied.history += result.history
        this.#applied.statuses += result.statuses
        this.#applied.batches++
        this.#chains.add(messages)
        this.#noteSites(messages, Date.now())
        this.#lastError = null
        this.#options.onCommit?.(result)
        return true
      } catch (error) {
        const code = (error as { code?: string }).code ?? ''
        this.#lastError = `postgres: ${(error as Error).message}`
        if (code === '23514' || code === '42P01') this.#partitions.forget() // no partition for a row, or a table gone
        if (!retryableCodes.has(code)) log.warn({ err: error, attempt }, 'hq ingest: batch not applied, trying again')
        await new Promise((resolve) => setTimeout(resolve, Math.min(5000, 50 * 2 ** Math.min(attempt, 7))))
      }
    }
    return false
  }

  /**
   * Stores the spans of the batches committed since the last call in the sites' chains (one
   * transaction; kept for the next call when it fails). Also run by a timer.
   */
  storeChains(): Promise<void> {
    if (this.#storingChains || !this.#chains.size) return this.#storingChains ?? Promise.resolve()
    const work = this.#chains.take()
    this.#storingChains = this.#options.db
      .transaction((tx) => storeChains(tx, work))
      .catch((error: unknown) => {
        this.#chains.restore(work)
        this.#options.log.warn({ err: error }, 'hq ingest: chains not stored, trying again')
      })
      .finally(() => (this.#storingChains = undefined))
    return this.#storingChains
  }

  /** Publishes on the ingest's connection (QoS 1): HQ's replay requests to a site. */
  /** Publishes at QoS 1; `retain`: the broker keeps it for a site that is away (a rollout command). */
  async publish(topic: string, payload: string, timeoutMs = 5000, retain = false): Promise<void> {
    const client = this.#client
    if (!client?.connected) throw new Error('not connected to the broker')
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error('publish timed out')), timeoutMs)))
    try {
      await Promise.race([client.publishAsync(topic, payload, { qos: 1, retain }), timeout])
    } finally {
      clearTimeout(timer)
    }
  }

  /** Stops taking messages; what was received and not committed is left to the broker. */
  async stop(): Promise<void> {
    this.#stopped = true
    clearTimeout(this.#timer)
    clearInterval(this.#chainTimer)
    await this.#running
    await this.#storingChains
    await this.storeChains()
    await this.#client?.endAsync(true)
  }
}
