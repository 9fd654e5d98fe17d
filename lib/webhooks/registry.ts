// Webhook registrations, kept in NeDB and mirrored in memory (there are at most
// maxRegistrations, and the change sink reads them on every order change).
import type { Collection, WriteOptions } from '../store/db.ts'
import type { WebhookState } from './types.ts'
export type { WebhookState } from './types.ts'

export const maxRegistrations = 20

export interface Registration {
  url: string
  /** Standard Webhooks signing secret (whsec_…); never leaves the host except once, at v2 registration. */
  secret: string
  version: 'v1' | 'v2'
  created: number
  state: WebhookState
  lastSuccess: number | null
  lastError: { at: number; message: string } | null
  /** Events dropped because the backlog was full (the outbox limits: docs/api.md). */
  dropped: number
  /**
   * The first seq this registration receives: changes numbered after it was made (or
   * re-enabled). A change recorded again after a crash (same, older seq) therefore never
   * reaches a URL registered since, after newer ones: per URL, seq only increases.
   * Absent in registrations stored before it existed: every change.
   */
  fromSeq?: number
  /**
   * The id of the token that registered it, when that token was not an admin (a till's own
   * webhooks: it lists and removes only these). Absent: an admin's, an open v1 caller's or
   * from before scopes, which only admins manage.
   */
  owner?: string
}

export class Registry {
  readonly #collection: Collection<Registration>
  readonly #byUrl = new Map<string, Registration>()

  private constructor(collection: Collection<Registration>) {
    this.#collection = collection
  }

  static async open(collection: Collection<Registration>): Promise<Registry> {
    const registry = new Registry(collection)
    for (const doc of await collection.find({}, { created: 1 })) {
      const { _id, ...registration } = doc
      registry.#byUrl.set(registration.url, registration)
    }
    return registry
  }

  get(url: string): Registration | undefined {
    return this.#byUrl.get(url)
  }

  all(): Registration[] {
    return [...this.#byUrl.values()]
  }

  get size(): number {
    return this.#byUrl.size
  }

  async add(registration: Registration): Promise<void> {
    await this.#collection.insert({ ...registration })
    this.#byUrl.set(registration.url, registration)
  }

  /** Updates some fields; the memory copy changes only once the write is durable. */
  /** `lazy` for delivery bookkeeping, whose loss in a crash the next attempt rewrites. */
  async patch(url: string, fields: Partial<Omit<Registration, 'url'>>, options: WriteOptions = {}): Promise<void> {
    if (!this.#byUrl.has(url)) return
    await this.#collection.update({ url }, { $set: fields }, options)
    const latest = this.#byUrl.get(url)
    if (latest) this.#byUrl.set(url, { ...latest, ...fields })
  }

  async remove(url: string): Promise<boolean> {
    if (!this.#byUrl.has(url)) return false
    await this.#collection.remove({ url })
    this.#byUrl.delete(url)
    return true
  }
}
