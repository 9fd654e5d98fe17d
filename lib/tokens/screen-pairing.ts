// Signing a screen in without the box, like a TV that shows a code: a new screen asks for a
// short code (no token needed), shows it, and polls; any signed-in screen (a manager's phone)
// approves the code, which mints the new screen its own named token, handed to it once on its
// next poll. Requests live in memory only: a restart simply asks the screen for a new code.
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
import { AuthFailureLimiter, keyOf } from './limiter.ts'
import { tokenName } from './names.ts'
import type { IssuedToken, TokenService } from './service.ts'

/** No 0/O, 1/I/L: a code read off a screen across a kitchen is typed right. */
export const codeAlphabet = '23456789ABCDEFGHJKMNPQRSTUVWXYZ'
export const codeLength = 8
export const pairingTtlMs = 10 * 60_000
export const maxWaiting = 32
export const perAddress = 4
/** Wrong codes an address may try per minute before 429: guessing stays slow even for token holders. */
export const wrongCodesPerMinute = 10

export interface PairingRequest {
  /** The poll handle: only the screen that asked knows it. */
  id: string
  /** What the screen shows, e.g. "K7QM-4XTP". */
  code: string
  /** The token name the screen suggests (its browser and a random tail). */
  name: string
  expiresAt: number
}

export type PairingPoll =
  | { state: 'waiting'; expiresAt: number }
  | { state: 'approved'; issued: IssuedToken }

interface Entry extends PairingRequest {
  address: string
  issued: IssuedToken | null
}

export interface ScreenPairingDeps {
  clock: Clock
  tokens: Pick<TokenService, 'issue'>
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

  /** A new code for the screen at `ip`; -4 for a bad name, 429 when too many wait. */
  request(ip: string, name: string | undefined): PairingRequest {
    const wanted = tokenName(name ?? 'screen')
    this.#sweep()
    const address = keyOf(ip)
    const fromHere = [...this.#byId.values()].filter((entry) => entry.address === address)
    if (this.#byId.size >= maxWaiting || fromHere.length >= perAddress) {
      const oldest = Math.min(...(fromHere.length >= perAddress ? fromHere : [...this.#byId.values()]).map((entry) => entry.expiresAt))
      throw new DomainError('SCREEN_CODES_EXHAUSTED', undefined, { retryAfter: Math.max(1, Math.ceil((oldest - this.#deps.clock.now()) / 1000)) })
    }
    let code = newCode()
    while (this.#byCode.has(code)) code = newCode()
    const entry: Entry = { id: randomBytes(16).toString('hex'), code, name: wanted, expiresAt: this.#deps.clock.now() + pairingTtlMs, address, issued: null }
    this.#byCode.set(code, entry)
    this.#byId.set(entry.id, entry)
    return present(entry)
  }

  /** The screen asks whether its code was approved; the token is given out once, then forgotten. */
  poll(id: string): PairingPoll {
    this.#sweep()
    const entry = this.#byId.get(id)
    if (!entry) throw new DomainError('SCREEN_REQUEST_NOT_FOUND')
    if (!entry.issued) return { state: 'waiting', expiresAt: entry.expiresAt }
    this.#forget(entry)
    return { state: 'approved', issued: entry.issued }
  }

  /**
   * A signed-in screen approves `code` (case, spaces and dashes do not matter): the waiting
   * screen gets a token named `name`, or the name it suggested. Approving twice is refused.
   */
  async approve(code: string, approver: string, ip: string, name?: string): Promise<{ name: string; prefix: string }> {
    this.#sweep()
    const retryAfter = this.#wrongCodes.retryAfter(ip)
    if (retryAfter > 0) throw new DomainError('RATE_LIMITED', undefined, { retryAfter })
    const entry = this.#byCode.get(normaliseCode(code))
    if (!entry || entry.issued) {
      this.#wrongCodes.recordFailure(ip)
      throw new DomainError('SCREEN_CODE_UNKNOWN')
    }
    const given = tokenName(name ?? entry.name)
    // Taken before the write, so two approvals of one code cannot both mint a token.
    this.#byCode.delete(entry.code)
    try {
      entry.issued = await this.#deps.tokens.issue(given)
    } catch (error) {
      this.#byCode.set(entry.code, entry)
      throw error
    }
    // The screen has the rest of the lifetime to collect it.
    this.#deps.log.info({ tokenName: given, approvedBy: approver }, 'screen signed in with a code')
    return { name: given, prefix: entry.issued.record.prefix }
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
