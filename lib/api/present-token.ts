// The v2 `token` object (spec "Access token record"): gateway-local times, and the token
// itself only in the generate answer; lists show its first characters as `prefix`. `scope`
// (what the token may do, docs/api.md "Scopes") is ours.
import { formatLocal } from '../kernel/time.ts'
import type { TokenWire } from './wire-types.ts'
import type { TokenRecord } from '../tokens/service.ts'

export function presentToken(record: TokenRecord, timezone: string, fullToken?: string): TokenWire {
  return {
    name: record.name,
    ...(fullToken !== undefined ? { token: fullToken } : {}),
    prefix: record.prefix,
    scope: record.scope,
    creation_date: formatLocal(record.createdAt, timezone),
    last_used: record.lastUsedAt === null ? null : formatLocal(record.lastUsedAt, timezone),
    ip_address: record.ipAddress,
  }
}
