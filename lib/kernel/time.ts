// Gateway-local time. The gateway's timezone is a setting (an IANA zone or a fixed "+HH:MM"),
// so every formatted timestamp and every "today" goes through these helpers.
//
// A zone's offsets come from the system's zone files (lib/kernel/zone-rules.ts), not from
// Intl: the first Intl.DateTimeFormat makes ICU page in its zone and locale data, about
// 8 MB of resident memory for an answer the files give directly. Intl stays as the
// fallback for a zone the files cannot answer for (no tzdata installed, a name with no file
// such as a legacy alias on a system without tzdata-legacy, an unreadable file), so such a
// machine still works, at ICU's memory cost.
import { zoneRulesFor } from './zone-rules.ts'

const fixedOffsetPattern = /^([+-])(\d{2}):(\d{2})$/
const formatters = new Map<string, Intl.DateTimeFormat>()

function formatterFor(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone)
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
    formatters.set(zone, formatter)
  }
  return formatter
}

export function isValidTimezone(zone: string): boolean {
  const fixed = fixedOffsetPattern.exec(zone)
  if (fixed) return Number(fixed[2]) <= 14 && Number(fixed[3]) < 60
  if (zone.length > 64 || !/^[A-Za-z0-9_+\-/]+$/.test(zone)) return false
  if (zone === 'UTC' || zone === 'Etc/UTC' || zoneRulesFor(zone)) return true
  try {
    formatterFor(zone)
    return true
  } catch {
    return false
  }
}

/**
 * Zone offsets only change at transitions, and every real zone's transitions and offsets
 * fall on quarter hours. So within one UTC quarter hour the offset is fixed, and the local
 * date, hour and first minute are too: they are worked out once per (zone, quarter hour),
 * and a timestamp is formatted from them with a little arithmetic. Finding the offset (a
 * search in the zone's transitions, or Intl for a zone without a file) costs more than
 * formatting, and a history page formats 75 distinct timestamps.
 */
const quarterHourMs = 15 * 60_000

interface Quarter {
  /** Minutes east of UTC. */
  offset: number
  /** "+HH:MM" / "-HH:MM". */
  offsetText: string
  /** "YYYY-MM-DD" and "HH" of the quarter's first minute, local. */
  date: string
  hour: string
  /** The local minute the quarter starts at (0, 15, 30 or 45 for every real zone). */
  minute: number
}

const quarters = new Map<string, Map<number, Quarter>>()
const quartersPerZoneLimit = 4096

const pad = (n: number, width = 2) => String(n).padStart(width, '0')
/** "00" to "59". */
const twoDigits = Array.from({ length: 60 }, (_, n) => pad(n))

function quarterOf(ms: number, zone: string): Quarter {
  const bucket = Math.floor(ms / quarterHourMs)
  let zoneQuarters = quarters.get(zone)
  const cached = zoneQuarters?.get(bucket)
  if (cached) return cached
  if (!zoneQuarters || zoneQuarters.size >= quartersPerZoneLimit) {
    zoneQuarters = new Map()
    quarters.set(zone, zoneQuarters)
  }
  const start = bucket * quarterHourMs
  const offset = zoneOffsetMinutes(start, zone)
  const local = formatShifted(start + offset * 60_000, 'T')
  const abs = Math.abs(offset)
  const quarter: Quarter = {
    offset,
    offsetText: `${offset < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`,
    date: local.slice(0, 10),
    hour: local.slice(11, 13),
    minute: Number(local.slice(14, 16)),
  }
  zoneQuarters.set(bucket, quarter)
  return quarter
}

function zoneOffsetMinutes(ms: number, zone: string): number {
  const fixed = fixedOffsetPattern.exec(zone)
  if (fixed) return (fixed[1] === '-' ? -1 : 1) * (Number(fixed[2]) * 60 + Number(fixed[3]))
  if (zone === 'UTC' || zone === 'Etc/UTC') return 0
  const rules = zoneRulesFor(zone)
  if (rules) {
    // Not a time a Date can hold: refused as Intl refused it.
    if (!(Math.abs(ms) <= 8.64e15)) throw new RangeError('Invalid time value')
    // Rounded as the Intl path rounds (its local time has seconds): the same minutes either way.
    return Math.round(rules.offsetSecondsAt(Math.floor(ms / 1000)) / 60)
  }
  return intlOffsetMinutes(ms, zone)
}

/** Minutes east of UTC for the zone at the instant `ms`. */
export function offsetMinutes(ms: number, zone: string): number {
  return quarterOf(ms, zone).offset
}

function intlOffsetMinutes(ms: number, zone: string): number {
  const parts: Record<string, number> = {}
  for (const part of formatterFor(zone).formatToParts(new Date(ms))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value)
  }
  const asUtc = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second)
  return Math.round((asUtc - Math.floor(ms / 1000) * 1000) / 60000)
}

/** "YYYY-MM-DDTHH:MM:SS" in the gateway's zone, without an offset. */
export function formatLocal(ms: number, zone: string, separator: 'T' | ' ' = 'T'): string {
  const quarter = quarterOf(ms, zone)
  const intoQuarter = ms - Math.floor(ms / quarterHourMs) * quarterHourMs
  const minute = quarter.minute + Math.floor(intoQuarter / 60_000)
  // An offset off the quarter hour (a "+05:07" setting, a historical local mean time) can
  // carry the quarter into the next hour: work that one out in full.
  if (minute > 59) return formatShifted(ms + quarter.offset * 60_000, separator)
  // Offsets are whole minutes, so the seconds are the UTC seconds.
  const second = Math.floor(intoQuarter / 1000) % 60
  return `${quarter.date}${separator}${quarter.hour}:${twoDigits[minute]}:${twoDigits[second]}`
}

/** A UTC instant shifted by the zone's offset, formatted as local wall time. */
function formatShifted(shiftedMs: number, separator: 'T' | ' '): string {
  const local = new Date(shiftedMs)
  return (
    `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}` +
    `${separator}${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}`
  )
}

/** "+HH:MM" / "-HH:MM" for the zone at the instant `ms`. */
export function formatOffset(ms: number, zone: string): string {
  return quarterOf(ms, zone).offsetText
}

/** "YYYY-MM-DDTHH:MM:SS+HH:MM": the order-summary timestamp form. */
export function formatWithOffset(ms: number, zone: string): string {
  return formatLocal(ms, zone) + quarterOf(ms, zone).offsetText
}

const localPattern = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(Z|[+-]\d{2}:\d{2})?$/

/**
 * Reads a wall-clock time in the gateway's zone (or with an explicit offset when allowed).
 * Returns undefined for anything malformed or impossible (e.g. February 30th).
 */
export function parseLocal(text: string, zone: string, options: { separator?: 'T' | ' ' | 'either'; allowOffset?: boolean } = {}): number | undefined {
  const match = localPattern.exec(text)
  if (!match) return undefined
  const separator = text[10]
  const wanted = options.separator ?? 'T'
  if (wanted !== 'either' && separator !== wanted) return undefined
  if (match[7] && !options.allowOffset) return undefined
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number)
  const asUtc = Date.UTC(year, month - 1, day, hour, minute, second)
  const check = new Date(asUtc)
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59)
    return undefined
  if (match[7]) {
    const offset = match[7] === 'Z' ? 0 : offsetMinutes(0, match[7])
    return asUtc - offset * 60000
  }
  // Two passes settle the zone's offset around DST changes.
  let guess = asUtc - offsetMinutes(asUtc, zone) * 60000
  guess = asUtc - offsetMinutes(guess, zone) * 60000
  return guess
}

/** The instant the calendar day containing `ms` began in the zone, and the next day's start. */
export function dayBounds(ms: number, zone: string): { start: number; end: number } {
  const local = formatLocal(ms, zone)
  const start = parseLocal(`${local.slice(0, 10)}T00:00:00`, zone)!
  const nextNoon = start + 36 * 3600_000
  const end = parseLocal(`${formatLocal(nextNoon, zone).slice(0, 10)}T00:00:00`, zone)!
  return { start, end }
}
