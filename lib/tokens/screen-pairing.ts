// Signing a screen in without the box, like a TV that shows a code: a new screen asks for a
// short code (no token needed), shows it, and polls; an admin token's holder (a manager's
// phone) approves the code with a name and a scope (`screen` unless chosen otherwise, never
// more than the approver's own), and the new screen's own token is minted when it collects it
// on its next poll. An approval the screen never collects mints nothing: it lapses with the
// request, so uncollected tokens cannot pile up against the token cap. A screen that asks for
// a new code names its old request (`replaces`), which is dropped, so asking again and again
// holds one place, not one per press. Requests live in memory only: a restart simply asks the
// screen for a new code.
//
// Guessing: approving needs a token, so only someone already trusted can try codes, 10 wrong
// ones a minute per address at most; a code is 8 characters from 31 (about 8.5e11 values)
// and lives 10 minutes. The poll handle is 128
// random bits, so nobody can collect another screen's token by polling. Bounded: at most
// `maxWaiting` requests at once and `perAddress` from one client address, so an open endpoint
// cannot fill memory.
import { randomBytes, randomInt } from 'node:crypto'
import type { Clock } from '../kernel/clock.ts'
import { DomainError } from '../kernel/errors.ts'
import type { Logger } from '../kernel/log.ts'
import { AuthFailureLimiter, keyOf, retryIn } from './limiter.ts'
import { tokenName } from './names.ts'
import { newTokenSecret, tokenPrefix } from './secret.ts'
import { assertWithin, type Scope, screenScope } from './scopes.ts'
import type { IssuedToken, TokenService } from './service.ts'
import type { PairingRequest, PairingPoll } from './types.ts'
export type { PairingRequest, PairingPoll } from './types.ts'

/** No 0/O, 1/I/L: a code read off a screen across a kitchen is typed right. */
export const codeAlphabet = '23456789ABCDEFGHJKMNPQRSTUVWXYZ'
export const codeLength = 8
export const pairingTtlMs = 10 * 60_000
export const maxWaiting = 32
export const perAddress = 4
/** Wrong codes an address may try per minute before 429: guessing stays slow even for token holders. */
export const wrongCodesPerMinute = 10

/** An approval not yet collected: the token's secret is drawn, but nothing is stored. */
interface Approval {
  name: string
  scope: Scope
  secret: string
  approver: string
}

interface Entry extends PairingRequest {
  address: string
  approval: Approval | null
  /** The mint under way for a poll, so two polls at once collect one token. */
  collecting: Promise<IssuedToken> | null
}

export interface ScreenPairingDeps {
  clock: Clock
  tokens: Pick<TokenService, 'issue' | 'assertRoom'>
  log: Logger
}

export class ScreenPairing {
  readonly #deps: ScreenPairingDeps
  /** By code without its dash. */
  readonly #byCode = new Map<string, Entry>()
  readonly #byId = new Map<string, Entry>()
  readonly #wrongCodes: AuthFailureLimiter

  constructor(deps: ScreenPairingDeps) {
    this.#deps = deps
    this.#wrongCodes = new AuthFailureLimiter(deps.clock, wrongCodesPerMinute)
  }

  /**
   * A new code for the screen at `ip`; `replaces`: the poll handle of this screen's earlier
   * request, dropped first (only the screen that asked knows it). -4 for a bad name, 429
   * saying when to retry when too many wait.
   */
  request(ip: string, name: string | undefined, replaces?: string): PairingRequest {
    const wanted = tokenName(name ?? 'screen')
    this.#sweep()
    const previous = replaces === undefined ? undefined : this.#byId.get(replaces)
    if (previous) this.#forget(previous)
    const address = keyOf(ip)
    const fromHere = [...this.#byId.values()].filter((entry) => entry.address === address)
    if (this.#byId.size >= maxWaiting || fromHere.length >= perAddress) {
      const oldest = Math.min(...(fromHere.length >= perAddress ? fromHere : [...this.#byId.values()]).map((entry) => entry.expiresAt))
      const retryAfter = Math.max(1, Math.ceil((oldest - this.#deps.clock.now()) / 1000))
      throw new DomainError('SCREEN_CODES_EXHAUSTED', retryIn(retryAfter), { retryAfter })
    }
    let code = newCode()
    while (this.#byCode.has(code)) code = newCode()
    const entry: Entry = {
      id: randomBytes(16).toString('hex'),
      code,
      name: wanted,
      expiresAt: this.#deps.clock.now() + pairingTtlMs,
      address,
      approval: null,
      collecting: null,
    }
    this.#byCode.set(code, entry)
    this.#byId.set(entry.id, entry)
    return present(entry)
  }

  /**
   * The screen asks whether its code was approved. Once it was, this mints its token (the
   * one time it is handed out), and the request is forgotten; a mint that fails (-50, -37)
   * leaves the approval to collect on a later poll while the request lives.
   */
  async poll(id: string): Promise<PairingPoll> {
    this.#sweep()
    const entry = this.#byId.get(id)
    if (!entry) throw new DomainError('SCREEN_REQUEST_NOT_FOUND')
    const approval = entry.approval
    if (!approval) return { state: 'waiting', expiresAt: entry.expiresAt }
    entry.collecting ??= this.#deps.tokens.issue(approval.name, approval.scope, approval.secret)
    let issued: IssuedToken
    try {
      issued = await entry.collecting
    } catch (error) {
      entry.collecting = null
      throw error
    }
    if (this.#byId.get(id) !== entry) throw new DomainError('SCREEN_REQUEST_NOT_FOUND')
    this.#forget(entry)
    this.#deps.log.info({ tokenName: approval.name, scope: approval.scope, approvedBy: approval.approver }, 'screen signed in with a code')
    return { state: 'approved', issued }
  }

  /**
   * A token holder of scope `approverScope` approves `code` (case, spaces and dashes do not
   * matter): the waiting screen's token will be named `name` (default the name it suggested)
   * and have `scope` (default screen; never more than the approver's: 403, -51). Nothing is
   * minted until the screen collects it; -50 already now when no token may be added.
   * Approving twice is refused.
   */
  approve(
    code: string,
    approver: { name: string; scope: Scope },
    ip: string,
    options: { name?: string; scope?: Scope } = {},
  ): { name: string; prefix: string; scope: Scope } {
    this.#sweep()
    const retryAfter = this.#wrongCodes.retryAfter(ip)
    if (retryAfter > 0) throw new DomainError('RATE_LIMITED', retryIn(retryAfter), { retryAfter })
    const entry = this.#byCode.get(normaliseCode(code))
    if (!entry || entry.approval) {
      this.#wrongCodes.recordFailure(ip)
      throw new DomainError('SCREEN_CODE_UNKNOWN')
    }
    const given = tokenName(options.name ?? entry.name)
    const scope = options.scope ?? screenScope
    assertWithin(approver.scope, scope)
    this.#deps.tokens.assertRoom()
    // Synchronous from the look-up to here, so two approvals of one code cannot both succeed.
    this.#byCode.delete(entry.code)
    const secret = newTokenSecret()
    entry.approval = { name: given, scope, secret, approver: approver.name }
    // The screen has the rest of the lifetime to collect it; uncollected, it lapses unminted.
    this.#deps.log.info({ tokenName: given, scope, approvedBy: approver.name }, 'screen sign-in approved')
    return { name: given, prefix: tokenPrefix(secret), scope }
  }

  /** How many screens wait for approval now (for tests and status). */
  get waiting(): number {
    this.#sweep()
    return this.#byId.size
  }

  #sweep(): void {
    const now = this.#deps.clock.now()
    for (const entry of this.#byId.values()) if (entry.expiresAt <= now) this.#forget(entry)
  }

  #forget(entry: Entry): void {
    this.#byId.delete(entry.id)
    if (this.#byCode.get(entry.code) === entry) this.#byCode.delete(entry.code)
  }
}

function newCode(): string {
  let code = ''
  for (let i = 0; i < codeLength; i++) code += codeAlphabet[randomInt(codeAlphabet.length)]
  return code
}

export function normaliseCode(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, '')
}

/** "K7QM4XTP" → "K7QM-4XTP": two halves are easier to read out. */
export function displayCode(code: string): string {
  return `${code.slice(0, codeLength / 2)}-${code.slice(codeLength / 2)}`
}

function present(entry: Entry): PairingRequest {
  return { id: entry.id, code: displayCode(entry.code), name: entry.name, expiresAt: entry.expiresAt }
}
