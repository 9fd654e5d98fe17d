// This gateway's own Zigbee network credentials. zigbee-herdsman's built-in network key is
// public (01 03 05 ... 0d), so every gateway generates its own key, extended PAN ID and PAN
// ID on first start and keeps them in the data dir: losing them means re-pairing every
// tracker and repeater, so docs/operations.md tells operators to back this file up.
import { randomBytes, randomInt } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import path from 'node:path'

export interface NetworkCredentials {
  /** 16 bytes. */
  networkKey: number[]
  /** 8 bytes. */
  extendedPanId: number[]
  /** 0x0001-0xFFFE. */
  panId: number
}

/** The key zigbee-herdsman uses when none is given: public, so never acceptable. */
export const herdsmanDefaultKey = [0x01, 0x03, 0x05, 0x07, 0x09, 0x0b, 0x0d, 0x0f, 0x00, 0x02, 0x04, 0x06, 0x08, 0x0a, 0x0c, 0x0d]

export const credentialsFileName = 'network.json'
/** herdsman's device database in the same directory: every paired device's address and endpoints. */
export const deviceDatabaseFileName = 'database.db'

/**
 * A network formed earlier (its credentials are here) whose device database is gone: herdsman
 * drops frames from devices it does not know, and devices do not rejoin by themselves, so
 * every device must be paired again (unless database.db is restored from a backup).
 */
/** Whether this data dir's Zigbee network was formed (its key and PAN IDs were generated). */
export function zigbeeNetworkFormed(dir: string): boolean {
  return existsSync(path.join(dir, credentialsFileName))
}

export function deviceDatabaseLost(dir: string): boolean {
  return zigbeeNetworkFormed(dir) && !existsSync(path.join(dir, deviceDatabaseFileName))
}

interface StoredCredentials {
  networkKey: string
  extendedPanId: string
  panId: number
}

const toHex = (bytes: number[]) => Buffer.from(bytes).toString('hex')
const fromHex = (text: string) => [...Buffer.from(text, 'hex')]

function sameBytes(a: number[], b: number[]): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i])
}

/** Bytes that are all 0x00 or all 0xFF mean "any network" to Zigbee stacks. */
function isWildcard(bytes: number[]): boolean {
  return bytes.every((b) => b === 0) || bytes.every((b) => b === 0xff)
}

export function generateCredentials(): NetworkCredentials {
  let networkKey: number[]
  do networkKey = [...randomBytes(16)]
  while (sameBytes(networkKey, herdsmanDefaultKey) || isWildcard(networkKey))
  let extendedPanId: number[]
  do extendedPanId = [...randomBytes(8)]
  while (isWildcard(extendedPanId))
  return { networkKey, extendedPanId, panId: randomInt(1, 0xffff) }
}

function valid(stored: Partial<StoredCredentials>): stored is StoredCredentials {
  return (
    typeof stored.networkKey === 'string' &&
    /^[0-9a-f]{32}$/.test(stored.networkKey) &&
    typeof stored.extendedPanId === 'string' &&
    /^[0-9a-f]{16}$/.test(stored.extendedPanId) &&
    Number.isInteger(stored.panId) &&
    stored.panId! >= 1 &&
    stored.panId! <= 0xfffe
  )
}

/**
 * Reads the credentials in `dir`, creating them on first start. A damaged file stops the
 * radio with a clear message instead of silently forming a new network (which would orphan
 * every paired device).
 */
export function loadOrCreateCredentials(dir: string): NetworkCredentials {
  const file = path.join(dir, credentialsFileName)
  let text: string | undefined
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  if (text !== undefined) {
    let stored: Partial<StoredCredentials>
    try {
      stored = JSON.parse(text) as Partial<StoredCredentials>
    } catch {
      throw new Error(`${file} is not valid JSON; restore it from a backup (deleting it forms a new network)`)
    }
    if (!valid(stored)) throw new Error(`${file} is damaged; restore it from a backup (deleting it forms a new network)`)
    return { networkKey: fromHex(stored.networkKey), extendedPanId: fromHex(stored.extendedPanId), panId: stored.panId }
  }
  const credentials = generateCredentials()
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const stored: StoredCredentials = {
    networkKey: toHex(credentials.networkKey),
    extendedPanId: toHex(credentials.extendedPanId),
    panId: credentials.panId,
  }
  // Written whole then renamed, so a power cut never leaves half a key behind.
  const temporary = `${file}.tmp`
  writeFileSync(temporary, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 })
  renameSync(temporary, file)
  return credentials
}
