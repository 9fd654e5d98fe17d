// Headquarters' API tokens: separate from any site's (a gateway token opens nothing here and
// the other way round). Created on the HQ machine (`gateway hq token create <name>`), shown
// once, stored as a SHA-256 hash in PostgreSQL so every instance accepts them. A token's scope
// is 'read' (the board and every read) or 'admin' (also uploading releases and driving
// rollouts: `gateway hq token create <name> --scope admin`).
import { createHash, randomBytes } from 'node:crypto'
import type { SqlClient } from '../store/postgres.ts'

export type HqScope = 'read' | 'admin'
export const hqScopes: readonly HqScope[] = ['read', 'admin']

const tokenPattern = /^hq_[0-9a-f]{48}$/

export interface HqTokenInfo {
  id: string
  name: string
  created: string
  lastUsed: string | null
  scope: HqScope
}

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex')

export class HqTokens {
  readonly #db: SqlClient

  constructor(db: SqlClient) {
    this.#db = db
  }

  /** A new token for `name`; the only time its text is seen. */
  async create(name: string, scope: HqScope = 'read'): Promise<{ token: string; id: string }> {
    if (!hqScopes.includes(scope)) throw new Error(`a token's scope is ${hqScopes.join(' or ')}`)
    if (!/^[\w .@-]{1,64}$/.test(name)) throw new Error('a token name is 1 to 64 letters, digits, spaces or . _ @ -')
    const token = `hq_${randomBytes(24).toString('hex')}`
    const id = token.slice(3, 11)
    await this.#db.query('INSERT INTO hq_tokens (id, name, hash, scope) VALUES ($1, $2, $3, $4)', [id, name, hashOf(token), scope])
    return { token, id }
  }

  /** Who holds this token, or undefined when it is not one of ours. */
  async verify(token: string): Promise<{ id: string; name: string; scope: HqScope } | undefined> {
    if (!tokenPattern.test(token)) return undefined
    const hash = hashOf(token)
    const { rows } = await this.#db.query<{ id: string; name: string; scope: HqScope; stale: boolean }>(
      `SELECT id, name, scope, last_used IS NULL OR last_used < now() - interval '1 minute' AS stale FROM hq_tokens WHERE hash = $1`,
      [hash],
    )
    const row = rows[0]
    if (!row) return undefined
    // last_used at most once a minute: a busy board does not write on every request.
    if (row.stale) await this.#db.query('UPDATE hq_tokens SET last_used = now() WHERE hash = $1', [hash])
    return { id: row.id, name: row.name, scope: row.scope }
  }

  async list(): Promise<HqTokenInfo[]> {
    const { rows } = await this.#db.query<{ id: string; name: string; scope: HqScope; created_at: Date; last_used: Date | null }>(
      'SELECT id, name, scope, created_at, last_used FROM hq_tokens ORDER BY created_at, id',
    )
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      created: row.created_at.toISOString(),
      lastUsed: row.last_used?.toISOString() ?? null,
      scope: row.scope,
    }))
  }

  /** Revokes every token with that name or id; returns how many. */
  async revoke(nameOrId: string): Promise<number> {
    const { rowCount } = await this.#db.query('DELETE FROM hq_tokens WHERE name = $1 OR id = $1', [nameOrId])
    return rowCount
  }
}
