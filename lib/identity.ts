// Who this gateway is: a device id generated once and kept in the data dir's store, the
// software version, and when this process started.
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { Collection } from './store/db.ts'

export interface GatewayIdentity {
  deviceId: string
  version: string
  startedAt: number
}

export const appVersion: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version

type IdentityDoc = { key: 'identity'; deviceId: string }

export async function loadIdentity(collection: Collection<IdentityDoc>, startedAt: number, configured?: string): Promise<GatewayIdentity> {
  let deviceId = configured
  if (!deviceId) {
    const stored = await collection.findOne({ key: 'identity' })
    deviceId = stored?.deviceId
    if (!deviceId) {
      deviceId = `TG-${randomBytes(6).toString('hex').toUpperCase()}`
      await collection.insert({ key: 'identity', deviceId })
    }
  }
  return { deviceId, version: appVersion, startedAt }
}
