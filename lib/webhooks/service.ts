// Webhooks (docs/api.md, "Events: webhooks and WebSocket"): registration behind the target guard and a HEAD probe, the
// persisted outbox fed by a ChangeLog sink, and one delivery attempt at a time per URL.
// The timing of attempts (when to retry) belongs to runtime/workers/webhook-dispatcher.ts.
import { orderModifiedPayload } from '../orders/notification.ts'
import type { Clock } from '../kernel/clock.ts'
import type { GatewayConfig } from '../config.ts'
import { DomainError } from '../kernel/errors.ts'
import { EventBus, type Listener, type Subscribable, type Unsubscribe } from '../kernel/events.ts'
import type { Logger } from '../kernel/log.ts'
import type { OrderChange } from '../orders/types.ts'
import type { Collection } from '../store/collection.ts'
import type { Durability, Store } from '../store/db.ts'
import { canonicalAddress, classifyAddress } from './address.ts'
import { WebhookClient } from './http-client.ts'
import { Outbox, type OutboxEntry } from './outbox.ts'
import { maxRegistrations, Registry, type Registration } from './registry.ts'
import { hmacSignature, newSecret, SigningKey, type SigningKeyDoc, signedContent } from './signing.ts'
import { type Endpoint, parseTarget, type Resolver, TargetGuard, TargetRefused } from './target.ts'
import type { RegisteringWho, WebhookStatus } from './types.ts'
export type { RegisteringCaller, RegisteringWho, WebhookStatus } from './types.ts'

/** The HEAD probe at registration never waits longer than this. */
const probeTimeoutMs = 5_000

/**
 * Registrations made without credentials (v1) on behalf of one LAN address (issue 41): it
 * may hold this many of the maxRegistrations places, so one host cannot take them all; its
 * registrations are probed one at a time, each for at most callerProbeTimeoutMs.
 */
export const maxRegistrationsPerCaller = 4
export const callerProbeTimeoutMs = 2_000

export interface WebhookDeps {
  config: GatewayConfig
  clock: Clock
  log: Logger
  store: Store
  deviceId: string
  /** The gateway's timezone now (payload timestamps). */
  timezone: () => string
  /** The last seq the change log handed out (reserved ones included): a new registration's start. */
  lastSeq: () => number
  /** Tests rebind names through this; the system resolver otherwise. */
  resolver?: Resolver
}

export type AttemptResult = 'delivered' | 'failed' | 'disabled' | 'gone'

/** 'enqueued': an entry was added to a URL's outbox (the dispatcher wakes up for it). */
export interface WebhookEvents {
  enqueued: string
}

export class WebhookService implements Subscribable<WebhookEvents> {
  readonly registry: Registry
  readonly outbox: Outbox
  /** Delivery attempts since start, by result (the gateway's /metrics). */
  readonly attempts = { delivered: 0, failed: 0 }
  readonly #deps: WebhookDeps
  readonly #keys: Collection<SigningKeyDoc>
  #signingKey: Promise<SigningKey> | undefined
  readonly #client: WebhookClient
  #ownEndpoint: () => Endpoint | null
  readonly #events: EventBus<WebhookEvents>
  #serial: Promise<unknown> = Promise.resolve()
  /** Addresses whose unauthenticated registration is being probed: one at a time each. */
  readonly #probing = new Set<string>()

  private constructor(deps: WebhookDeps, registry: Registry, outbox: Outbox, keys: Collection<SigningKeyDoc>) {
    this.#deps = deps
    this.#events = new EventBus(deps.log)
    this.registry = registry
    this.outbox = outbox
    this.#keys = keys
    this.#ownEndpoint = () => ({ host: deps.config.host, port: deps.config.port })
    const guard = new TargetGuard({
      allowLoopback: deps.config.webhooks.allowLoopback,
      ownEndpoint: () => this.#ownEndpoint(),
      resolver: deps.resolver,
    })
    this.#client = new WebhookClient(guard)
  }

  static async open(deps: WebhookDeps): Promise<WebhookService> {
    const registry = await Registry.open(await deps.store.collection('webhooks', [{ fieldName: 'url', unique: true }]))
    const outbox = await Outbox.open(await deps.store.collection('webhook-outbox', [{ fieldName: 'url' }]), new Set(registry.all().map((r) => r.url)))
    return new WebhookService(deps, registry, outbox, await deps.store.collection<SigningKeyDoc>('webhook-keys'))
  }

  /**
   * The gateway's ed25519 signing key, loaded (or made and stored, once per gateway) when a
   * delivery is first signed or the JWKS document first asked for: a gateway nobody
   * registered a webhook with never pays for making it (jose, which makes it, is about 11 MB
   * in a process). Concurrent first calls share one key; a failure is tried again next time.
   */
  signingKey(): Promise<SigningKey> {
    this.#signingKey ??= SigningKey.open(this.#keys, this.#deps.clock.now()).catch((error: unknown) => {
      this.#signingKey = undefined
      throw error
    })
    return this.#signingKey
  }

  /** Where the gateway really listens, once it does (the configured port may be 0). */
  setOwnEndpoint(endpoint: () => Endpoint | null): void {
    this.#ownEndpoint = endpoint
  }

  on<K extends keyof WebhookEvents>(event: K, listener: Listener<WebhookEvents[K]>): Unsubscribe {
    return this.#events.on(event, listener)
  }

  /** Registration and removal run one at a time, so a URL is never registered twice. */
  #serialised<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#serial.then(work)
    this.#serial = run.catch(() => undefined)
    return run
  }

  /**
   * Registers a callback URL after a HEAD probe. Idempotent: registering a URL again keeps
   * its secret and backlog (and re-enables it after a 410); the secret is returned only
   * when the registration is new. `owner`: the registering token's id when it is not an
   * admin's, so that token manages it (docs/api.md, "Scopes"); registering a URL that exists
   * already changes no owner.
   */
  async register(value: unknown, version: 'v1' | 'v2', who: RegisteringWho = {}): Promise<{ url: string; secret?: string; created: boolean }> {
    const { owner, caller } = who
    const url = parseTarget(value)
    if (!caller) await this.#probe(url)
    else {
      const key = canonicalAddress(caller.ip)
      if (this.#probing.has(key)) {
        throw new DomainError('SHARE_EXCEEDED', 'a callback registration from this address is being checked; retry once it is answered', {
          retryAfter: Math.ceil(callerProbeTimeoutMs / 1000),
        })
      }
      // Refused before any probe when the address has its share already (a URL of its own
      // that is registered is only confirmed again, below).
      if (!this.registry.get(url.href)) this.#checkCallerShare(key)
      this.#probing.add(key)
      try {
        await this.#probe(url, callerProbeTimeoutMs)
      } finally {
        this.#probing.delete(key)
      }
    }
    return this.#serialised(async () => {
      const existing = this.registry.get(url.href)
      if (existing) {
        // Re-enabled after a 410: from here on, like a new registration.
        if (existing.state === 'disabled') await this.registry.patch(url.href, { state: 'active', fromSeq: this.#deps.lastSeq() + 1 })
        return { url: url.href, created: false }
      }
      if (caller) this.#checkCallerShare(canonicalAddress(caller.ip))
      if (this.registry.size >= maxRegistrations) {
        throw new DomainError('CALLBACK_INVALID', `at most ${maxRegistrations} callback URLs may be registered`)
      }
      const registration: Registration = {
        url: url.href,
        secret: newSecret(),
        version,
        created: this.#deps.clock.now(),
        state: 'active',
        lastSuccess: null,
        lastError: null,
        dropped: 0,
        fromSeq: this.#deps.lastSeq() + 1,
        ...(owner === undefined ? {} : { owner }),
      }
      await this.registry.add(registration)
      this.#deps.log.info({ url: url.host, version }, 'webhook registered')
      return { url: url.href, secret: registration.secret, created: true }
    })
  }

  /** Refuses (-52) a new unauthenticated registration for an address holding its share of the places. */
  #checkCallerShare(address: string): void {
    let held = 0
    for (const registration of this.registry.all()) if (hostAddress(registration.url) === address) held++
    if (held >= maxRegistrationsPerCaller) {
      throw new DomainError(
        'CALLBACK_LIMIT_REACHED',
        `at most ${maxRegistrationsPerCaller} callback URLs per address without credentials; remove one (DELETE /api/v2/register) or register with a v2 token`,
      )
    }
  }

  async #probe(url: URL, timeoutMs = probeTimeoutMs): Promise<void> {
    let status: number
    let location: string | undefined
    try {
      ;({ status, location } = await this.#client.send(url, {
        method: 'HEAD',
        timeoutMs: Math.min(this.#deps.config.webhooks.timeoutMs, timeoutMs),
      }))
    } catch (error) {
      if (error instanceof TargetRefused) throw new DomainError('CALLBACK_INVALID', error.message)
      throw new DomainError('CALLBACK_UNREACHABLE', describe(error))
    }
    // A redirect is never followed: the client must register the URL that answers.
    if (status >= 300 && status < 400) {
      throw new DomainError('CALLBACK_INVALID', `the server redirects${location ? ` to ${location}` : ''}; redirects are not followed`)
    }
  }

  /** `owner`: only a registration of that token may go (another's is "not registered", as if absent). */
  async unregister(value: unknown, owner?: string): Promise<void> {
    const url = parseTarget(value)
    await this.#serialised(async () => {
      const registration = this.registry.get(url.href)
      if (!registration || (owner !== undefined && registration.owner !== owner)) throw new DomainError('CALLBACK_NOT_REGISTERED')
      await this.registry.remove(url.href)
      await this.outbox.clear(url.href)
      this.#deps.log.info({ url: url.host }, 'webhook removed')
    })
  }

  /** Every registration (or only `owner`'s) with its delivery state, never the secret nor the owner. */
  list(owner?: string): WebhookStatus[] {
    return this.registry
      .all()
      .filter((r) => owner === undefined || r.owner === owner)
      .map(({ secret: _secret, fromSeq: _fromSeq, owner: _owner, ...r }) => ({ ...r, backlog: this.outbox.backlog(r.url) }))
  }

  /** Host only (control socket): the registrations with their secrets. */
  listWithSecrets(): (WebhookStatus & { secret: string })[] {
    return this.registry.all().map(({ fromSeq: _fromSeq, ...r }) => ({ ...r, backlog: this.outbox.backlog(r.url) }))
  }

  async jwks(): Promise<ReturnType<SigningKey['jwks']>> {
    return (await this.signingKey()).jwks()
  }

  /** The ChangeLog sink: one outbox entry per registered URL, durable before the change is acknowledged. */
  readonly sink = async (change: OrderChange, durability: Durability = 'now'): Promise<void> => {
    if (!this.registry.size) return
    const targets = this.registry.all().filter((r) => r.state !== 'disabled' && change.seq >= (r.fromSeq ?? 0))
    if (!targets.length) return
    const payload = { ...orderModifiedPayload(change.order, change.seq, { now: change.at, timezone: this.#deps.timezone() }), changeType: change.type }
    const body = JSON.stringify(payload)
    const id = `msg_${this.#deps.deviceId}_${change.seq}`
    await Promise.all(
      targets.map(async (target) => {
        const dropped = await this.outbox.append({ url: target.url, seq: change.seq, id, body, attempts: 0, nextAttemptAt: 0, created: change.at }, durability)
        if (dropped) {
          const current = this.registry.get(target.url)
          await this.registry.patch(
            target.url,
            {
              dropped: (current?.dropped ?? 0) + dropped,
              lastError: { at: change.at, message: `backlog full: oldest ${dropped} event(s) dropped` },
            },
            { durability },
          )
        }
      }),
    )
    for (const target of targets) this.#events.emit('enqueued', target.url)
  }

  /** The signed headers of one attempt (the timestamp is the attempt's). */
  async headersFor(entry: OutboxEntry, secret: string, nowMs: number): Promise<Record<string, string>> {
    const signingKey = await this.signingKey()
    const timestamp = Math.floor(nowMs / 1000)
    const content = signedContent(entry.id, timestamp, entry.body)
    return {
      'content-type': 'application/json',
      'webhook-id': entry.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': `${hmacSignature(secret, content)} ${signingKey.sign(content)}`,
      'webhook-key-id': signingKey.kid,
    }
  }

  /**
   * One delivery attempt of the entry at the head of its URL's queue. 2xx removes it; 410
   * disables the registration (and drops its backlog); anything else (3xx included: never
   * followed) is a failure that the dispatcher retries later.
   */
  async attempt(entry: OutboxEntry, retryDelay: (attempts: number) => number, signal?: AbortSignal): Promise<AttemptResult> {
    const registration = this.registry.get(entry.url)
    if (!registration || registration.state === 'disabled') return 'gone'
    const { clock } = this.#deps
    let failure: string
    try {
      const { status, location } = await this.#client.send(new URL(entry.url), {
        method: 'POST',
        body: entry.body,
        headers: await this.headersFor(entry, registration.secret, clock.now()),
        timeoutMs: this.#deps.config.webhooks.timeoutMs,
        signal,
      })
      if (status >= 200 && status < 300) {
        await this.outbox.acknowledge(entry)
        await this.registry.patch(entry.url, { state: 'active', lastSuccess: clock.now() }, { durability: 'lazy' })
        this.attempts.delivered++
        return 'delivered'
      }
      if (status === 410) {
        await this.outbox.clear(entry.url)
        await this.registry.patch(
          entry.url,
          { state: 'disabled', lastError: { at: clock.now(), message: 'receiver answered 410 Gone: disabled' } },
          { durability: 'lazy' },
        )
        this.#deps.log.warn({ url: new URL(entry.url).host }, 'webhook disabled by 410 Gone')
        return 'disabled'
      }
      failure = status >= 300 && status < 400 ? `HTTP ${status} redirect (not followed)${location ? ` to ${location}` : ''}` : `HTTP ${status}`
    } catch (error) {
      if (signal?.aborted) return 'failed'
      failure = describe(error)
    }
    const attempts = entry.attempts + 1
    const now = clock.now()
    await this.outbox.reschedule(entry, attempts, now + retryDelay(attempts))
    await this.registry.patch(entry.url, { state: 'failing', lastError: { at: now, message: failure } }, { durability: 'lazy' })
    this.attempts.failed++
    return 'failed'
  }

  close(): void {
    this.#client.close()
  }
}

/** The canonical address a callback URL names, or undefined for a host name. */
function hostAddress(url: string): string | undefined {
  const host = new URL(url).hostname
  return classifyAddress(host) === null ? undefined : canonicalAddress(host)
}

function describe(error: unknown): string {
  const e = error as NodeJS.ErrnoException
  if (e instanceof TargetRefused) return e.message
  return (e?.code ? `${e.code}: ` : '') + String(e?.message ?? error).slice(0, 200)
}
