// Access tokens (docs/api.md, "Access tokens and security"): issued by the button window or by an existing token, stored
// only as SHA-256 hashes, verified in constant time against an in-memory index so that a
// revocation takes effect on the very next request.
import { DomainError } from '../kernel/errors.ts'
import type { Clock } from '../kernel/clock.ts'
import { EventBus, type Listener, type Subscribable, type Unsubscribe } from '../kernel/events.ts'
import type { Logger } from '../kernel/log.ts'
import type { Collection } from '../store/db.ts'
import type { ButtonWindow } from './button.ts'
import { AuthFailureLimiter } from './limiter.ts'
import { hashToken, newTokenSecret, sameHash, tokenPattern, tokenPrefix } from './secret.ts'
import { defaultScope, type Scope, scopeAllows } from './scopes.ts'
import { UsageBuffer } from './usage.ts'
import { byLettersAndDigits } from '../kernel/text-order.ts'
import type { TokenRecord, IssuedToken, TokenIdentity } from './types.ts'
export type { TokenRecord, IssuedToken, TokenIdentity } from './types.ts'

/** What the datastore holds: never the token itself. */
export interface TokenDoc {
  name: string
  /** SHA-256 of the token, hex. */
  hash: string
  prefix: string
  createdAt: number
  lastUsedAt: number | null
  ipAddress: string | null
  /** What the token may do; absent on tokens stored before scopes, which were `admin`. */
  scope?: Scope
}

export interface TokenServiceDeps {
  collection: Collection<TokenDoc>
  clock: Clock
  log: Logger
  button: ButtonWindow
  /** Failed authentications per client address per minute before 429. */
  authFailuresPerMinute: number
  /** Longest time a token's last use waits in memory before it is written. */
  usageFlushMs?: number
  /** Tokens that may exist at once; minting more is refused (-50). */
  maxTokens?: number
}

/** 'revoked': a token stopped working (live WebSocket sessions it opened are closed). */
export interface TokenEvents {
  revoked: TokenIdentity
}

interface Entry {
  doc: TokenDoc & { _id: string }
  hash: Buffer
}

export const defaultUsageFlushMs = 60_000

/**
 * A restaurant has tens of devices. Past this, minting is refused rather than the oldest
 * unused token evicted: eviction would let anyone who may mint (a button window, any token)
 * silently cut off a device that simply had not called yet (a spare tablet, a POS set up but
 * closed today), and who is "unused" is only a guess. A refusal is visible and changes nothing.
 */
export const defaultMaxTokens = 100

/** How many verified tokens are remembered before the memory starts over. */
const verifiedCacheSize = 64

export class TokenService implements Subscribable<TokenEvents> {
  readonly authFailures: AuthFailureLimiter
  readonly #deps: TokenServiceDeps
  readonly #entries = new Map<string, Entry>()
  /** The same entries by their hash (hex): a presented token is found without comparing every hash. */
  readonly #byHash = new Map<string, Entry>()
  /** Tokens being written now: they count against the cap before they exist. */
  #minting = 0
  /**
   * Presented token → id, for tokens that verified: hashing every request's token was a
   * measurable part of a read's cost (docs/decisions/0003-fast-http-host.md). Secrets held here are ones
   * clients send in every request anyway; memory only, never stored.
   */
  readonly #verified = new Map<string, string>()
  readonly #usage: UsageBuffer
  readonly #events: EventBus<TokenEvents>

  private constructor(deps: TokenServiceDeps, docs: (TokenDoc & { _id: string })[]) {
    this.#deps = deps
    this.#events = new EventBus(deps.log)
    this.authFailures = new AuthFailureLimiter(deps.clock, deps.authFailuresPerMinute)
    for (const doc of docs) this.#index({ doc, hash: Buffer.from(doc.hash, 'hex') })
    this.#usage = new UsageBuffer({
      clock: deps.clock,
      log: deps.log,
      flushMs: deps.usageFlushMs ?? defaultUsageFlushMs,
      write: async (id, use) => {
        if (!this.#entries.has(id)) return
        await deps.collection.update({ _id: id }, { $set: { lastUsedAt: use.at, ipAddress: use.ip } })
      },
    })
  }

  static async open(deps: TokenServiceDeps): Promise<TokenService> {
    return new TokenService(deps, await deps.collection.find({}))
  }

  on<K extends keyof TokenEvents>(event: K, listener: Listener<TokenEvents[K]>): Unsubscribe {
    return this.#events.on(event, listener)
  }

  /** How many tokens may exist at once. */
  get maxTokens(): number {
    return this.#deps.maxTokens ?? defaultMaxTokens
  }

  /**
   * Mints a token with a valid name (see names.ts) and a scope; the caller already proved it
   * may give that scope. `secret`: a token drawn earlier (newTokenSecret) and not yet stored,
   * as a screen's approval draws one to name its prefix before the screen collects it.
   * -50 when maxTokens exist (or are being minted): revoke one first.
   */
  async issue(name: string, scope: Scope = defaultScope, secret?: string): Promise<IssuedToken> {
    this.assertRoom()
    const token = secret ?? newTokenSecret()
    const hash = hashToken(token)
    this.#minting++
    let doc: TokenDoc & { _id: string }
    try {
      doc = await this.#deps.collection.insert({
        name,
        hash: hash.toString('hex'),
        prefix: tokenPrefix(token),
        createdAt: this.#deps.clock.now(),
        lastUsedAt: null,
        ipAddress: null,
        scope,
      })
    } finally {
      this.#minting--
    }
    this.#index({ doc, hash })
    this.#deps.log.info({ tokenName: name, tokenId: doc._id, scope }, 'access token issued')
    return { token, record: this.#record(this.#entries.get(doc._id)!) }
  }

  /** -50 when no other token may be minted now (maxTokens exist or are being minted). */
  assertRoom(): void {
    if (this.#entries.size + this.#minting >= this.maxTokens) {
      throw new DomainError('TOKEN_LIMIT_REACHED', `at most ${this.maxTokens} may exist; revoke unused ones (gateway token list, gateway token revoke <name>)`)
    }
  }

  /** The first token of a button press: -3 outside the window; generating closes it. */
  async issueWithButton(name: string, scope: Scope = defaultScope): Promise<IssuedToken> {
    const closesAt = this.#deps.button.take()
    if (closesAt === null) throw new DomainError('BUTTON_WINDOW_CLOSED')
    try {
      return await this.issue(name, scope)
    } catch (error) {
      this.#deps.button.restore(closesAt)
      throw error
    }
  }

  /**
   * The token's identity, or null; a use is recorded in memory. A null answer counts as a
   * failed authentication of `ip`. The token is found by its SHA-256 in a map, then compared in
   * constant time: how long the lookup takes can only tell something about the hash of the
   * value sent, and a stored token cannot be had from its hash (192 random bits).
   */
  async verifyToken(token: string, ip: string): Promise<TokenIdentity | null> {
    return this.verifyTokenNow(token, ip)
  }

  /** verifyToken() without a promise, for the router's check of every request (issue 30). */
  verifyTokenNow(token: string, ip: string): TokenIdentity | null {
    // A token that verified before skips the hash (a revoked one is no longer in #entries).
    const knownId = this.#verified.get(token)
    let found = knownId === undefined ? undefined : this.#entries.get(knownId)
    if (!found && tokenPattern.test(token)) {
      const hash = hashToken(token)
      const entry = this.#byHash.get(hash.toString('hex'))
      if (entry && sameHash(entry.hash, hash)) found = entry
      if (found) this.#rememberVerified(token, found.doc._id)
    }
    if (!found) {
      this.authFailures.recordFailure(ip)
      return null
    }
    this.#usage.record(found.doc._id, { at: this.#deps.clock.now(), ip })
    return { name: found.doc.name, id: found.doc._id, scope: found.doc.scope ?? defaultScope }
  }

  /**
   * Only tokens that verified are remembered (guesses never grow the map), and few: a gateway
   * has a handful of clients, so the map is simply emptied when it fills.
   */
  #rememberVerified(token: string, id: string): void {
    if (this.#verified.size >= verifiedCacheSize) this.#verified.clear()
    this.#verified.set(token, id)
  }

  get(id: string): TokenRecord | null {
    const entry = this.#entries.get(id)
    return entry ? this.#record(entry) : null
  }

  /** Every token, oldest first. */
  list(): TokenRecord[] {
    return [...this.#entries.values()].map((entry) => this.#record(entry)).sort((a, b) => a.createdAt - b.createdAt || byLettersAndDigits(a.id, b.id))
  }

  /** Revokes one token by id; false when it does not exist (any more). */
  async revoke(id: string): Promise<boolean> {
    const entry = this.#entries.get(id)
    if (!entry) return false
    await this.#remove([entry])
    return true
  }

  /** Revokes every token with this name (names need not be unique); -6 when there is none. */
  async revokeByName(name: string): Promise<number> {
    const entries = [...this.#entries.values()].filter((entry) => entry.doc.name === name)
    if (!entries.length) throw new DomainError('TOKEN_NOT_FOUND', name)
    await this.#remove(entries)
    return entries.length
  }

  /**
   * Renames every token called `selector`, or else every token whose prefix (as lists show
   * it) it is, so one of several screens that share a name can be told apart; -6 when
   * neither matches. The new name (valid, see names.ts) is in force at once.
   */
  async rename(selector: string, newName: string): Promise<TokenRecord[]> {
    const entries = this.#select(selector)
    await this.#deps.collection.update({ _id: { $in: entries.map((entry) => entry.doc._id) } }, { $set: { name: newName } }, { multi: true })
    for (const entry of entries) {
      this.#deps.log.info({ tokenName: newName, previousName: entry.doc.name, tokenId: entry.doc._id }, 'access token renamed')
      entry.doc.name = newName
    }
    return entries.map((entry) => this.#record(entry))
  }

  /**
   * Narrows every token called `selector`, or else every token whose prefix it is, to
   * `scope`, in force on the next request. Never widens: when any of them holds less than
   * `scope`, nothing changes (403, -51); -6 when none matches.
   */
  async narrow(selector: string, scope: Scope): Promise<TokenRecord[]> {
    const entries = this.#select(selector)
    const wider = entries.find((entry) => !scopeAllows(entry.doc.scope ?? defaultScope, scope))
    if (wider) throw new DomainError('SCOPE_DENIED', `"${wider.doc.name}" is ${wider.doc.scope}; a scope can only be narrowed`)
    await this.#deps.collection.update({ _id: { $in: entries.map((entry) => entry.doc._id) } }, { $set: { scope } }, { multi: true })
    for (const entry of entries) {
      this.#deps.log.info({ tokenName: entry.doc.name, tokenId: entry.doc._id, scope, previousScope: entry.doc.scope ?? defaultScope }, 'access token narrowed')
      entry.doc.scope = scope
    }
    return entries.map((entry) => this.#record(entry))
  }

  /** Tokens called `selector`, or else those whose prefix it is; -6 when neither matches. */
  #select(selector: string): Entry[] {
    const all = [...this.#entries.values()]
    let entries = all.filter((entry) => entry.doc.name === selector)
    if (!entries.length) entries = all.filter((entry) => entry.doc.prefix === selector)
    if (!entries.length) throw new DomainError('TOKEN_NOT_FOUND', selector)
    return entries
  }

  /** Writes pending last-use times (also done by a timer and at stop). */
  flushUsage(): Promise<void> {
    return this.#usage.flush()
  }

  async stop(): Promise<void> {
    await this.#usage.stop()
  }

  async #remove(entries: Entry[]): Promise<void> {
    // Out of the index first: the token stops working now, even if the write is slow.
    for (const entry of entries) {
      this.#entries.delete(entry.doc._id)
      this.#byHash.delete(entry.doc.hash)
      this.#usage.forget(entry.doc._id)
    }
    // If this write fails the token stays revoked until restart, and the caller hears of it.
    await this.#deps.collection.remove({ _id: { $in: entries.map((entry) => entry.doc._id) } }, { multi: true })
    for (const entry of entries) {
      this.#deps.log.info({ tokenName: entry.doc.name, tokenId: entry.doc._id }, 'access token revoked')
      this.#events.emit('revoked', { name: entry.doc.name, id: entry.doc._id, scope: entry.doc.scope ?? defaultScope })
    }
  }

  #index(entry: Entry): void {
    this.#entries.set(entry.doc._id, entry)
    this.#byHash.set(entry.doc.hash, entry)
  }

  #record(entry: Entry): TokenRecord {
    const use = this.#usage.latest(entry.doc._id)
    return {
      id: entry.doc._id,
      name: entry.doc.name,
      prefix: entry.doc.prefix,
      scope: entry.doc.scope ?? defaultScope,
      createdAt: entry.doc.createdAt,
      lastUsedAt: use?.at ?? entry.doc.lastUsedAt,
      ipAddress: use?.ip ?? entry.doc.ipAddress,
    }
  }
}
