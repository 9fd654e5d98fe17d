// A zone's UTC offset at an instant, from the system's compiled zone files (the zoneinfo
// directory: TZDIR if set, else /usr/share/zoneinfo). Each zone's file is read once and kept.
// Answering from the files rather than from Intl keeps ICU's time-zone and locale data out
// of the gateway's memory (about 8 MB resident; docs/architecture.md, "Local time").
// A name the files cannot answer for gives `undefined`: lib/kernel/time.ts then asks Intl.
import { closeSync, fstatSync, openSync, readdirSync, readSync } from 'node:fs'
import { join } from 'node:path'
import { parsePosixTz, posixTypeAt, type PosixTz } from './posix-tz.ts'
import { parseTzif, type LocalTimeType, type TzifData } from './tzif.ts'

export const defaultZoneinfoDir = '/usr/share/zoneinfo'

export interface ZoneRules {
  /** The zone's name as its file is called (the directory's spelling of the asked name). */
  readonly name: string
  /** Seconds east of UTC at `seconds` since 1970 UTC. */
  offsetSecondsAt(seconds: number): number
}

/**
 * The names looked up on disk: IANA's characters only (no ".", so no ".." and no file
 * extensions), relative (no leading "/"), no empty parts, and every part of the file's
 * name starting with a capital letter. That last rule keeps out what sits beside the zones
 * in the directory without being one: "posixrules", "localtime", the "posix/" and "right/"
 * copies, "leapseconds".
 */
const namePattern = /^[A-Za-z0-9_+-]+(?:\/[A-Za-z0-9_+-]+)*$/
const maxNameLength = 64
const zonePart = /^[A-Z]/
/** A file in the zone's form that names no local time ("Factory": "-00"); Intl refuses it too. */
const notZones = new Set(['Factory'])
/** The largest zone file shipped is a few kilobytes; anything far bigger is not one. */
const maxFileBytes = 256 * 1024

export function isZoneFileName(name: string): boolean {
  return name.length <= maxNameLength && namePattern.test(name)
}

class FileZoneRules implements ZoneRules {
  readonly name: string
  readonly #data: TzifData
  readonly #footer: PosixTz | undefined

  constructor(name: string, data: TzifData) {
    this.name = name
    this.#data = data
    this.#footer = data.footer === '' ? undefined : parsePosixTz(data.footer)
  }

  offsetSecondsAt(seconds: number): number {
    return this.#typeAt(seconds).utoff
  }

  #typeAt(seconds: number): LocalTimeType {
    const { transitions, transitionTypes, types } = this.#data
    const last = transitions.length - 1
    // RFC 8536 3.2: the footer covers every instant after the last transition (all of them
    // when there is none); before the first, the first local time type applies.
    if (this.#footer && (last < 0 || seconds > transitions[last]!)) return posixTypeAt(this.#footer, seconds)
    if (last < 0 || seconds < transitions[0]!) return types[0]!
    let low = 0
    let high = last
    while (low < high) {
      const middle = (low + high + 1) >> 1
      if (transitions[middle]! <= seconds) low = middle
      else high = middle - 1
    }
    return types[transitionTypes[low]!]!
  }
}

/** The zone files of one zoneinfo directory, each read and parsed once (a bounded map). */
export class ZoneRuleBook {
  readonly dir: string
  readonly #limit: number
  readonly #zones = new Map<string, ZoneRules | null>()

  constructor(dir: string, limit = 64) {
    this.dir = dir
    this.#limit = limit
  }

  /** The rules for a zone name, or undefined when the name is not a readable, valid zone file. */
  lookup(name: string): ZoneRules | undefined {
    const known = this.#zones.get(name)
    if (known !== undefined) return known ?? undefined
    const rules = isZoneFileName(name) ? this.#load(name) : null
    if (this.#zones.size >= this.#limit) this.#zones.delete(this.#zones.keys().next().value!)
    this.#zones.set(name, rules)
    return rules ?? undefined
  }

  #load(name: string): ZoneRules | null {
    const fileName = this.#spelling(name)
    if (!fileName || notZones.has(fileName) || !fileName.split('/').every((part) => zonePart.test(part))) return null
    const bytes = readZoneFile(join(this.dir, fileName))
    if (!bytes) return null
    try {
      return new FileZoneRules(fileName, parseTzif(bytes))
    } catch {
      return null // malformed file or footer: the caller falls back
    }
  }

  /**
   * The directory's spelling of a name: the name itself when it exists, else the one entry
   * per level that matches it ignoring case (Intl accepts "utc" and "europe/berlin" too).
   */
  #spelling(name: string): string | undefined {
    let path = ''
    for (const part of name.split('/')) {
      let entries: string[]
      try {
        entries = readdirSync(join(this.dir, path))
      } catch {
        return undefined // no directory (no tzdata), or a file where a directory was named
      }
      const found = entries.includes(part) ? part : onlyOne(entries.filter((entry) => entry.toLowerCase() === part.toLowerCase()))
      if (found === undefined) return undefined
      path = path === '' ? found : `${path}/${found}`
    }
    return path
  }
}

const onlyOne = (list: string[]) => (list.length === 1 ? list[0] : undefined)

/** A regular file's bytes (following links), or undefined for anything else or too big. */
function readZoneFile(path: string): Uint8Array | undefined {
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch {
    return undefined
  }
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile() || stat.size > maxFileBytes) return undefined
    const bytes = new Uint8Array(stat.size)
    let filled = 0
    while (filled < bytes.length) {
      const read = readSync(fd, bytes, filled, bytes.length - filled, null)
      if (read === 0) break
      filled += read
    }
    return bytes.subarray(0, filled)
  } catch {
    return undefined
  } finally {
    closeSync(fd)
  }
}

let book: ZoneRuleBook | undefined

/** The rules for a zone from the process's zoneinfo directory (TZDIR, else /usr/share/zoneinfo). */
export function zoneRulesFor(name: string): ZoneRules | undefined {
  book ??= new ZoneRuleBook(process.env.TZDIR || defaultZoneinfoDir)
  return book.lookup(name)
}
