// Gateway-local time. The gateway's timezone is a setting (an IANA zone or a fixed "+HH:MM"),
// so every formatted timestamp and every "today" goes through these helpers.

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
  try {
    formatterFor(zone)
    return true
  } catch {
    return false
  }
}

/**
 * Zone offsets only change at transitions, and every real zone's transitions fall on a
 * quarter hour: the offset is the same for a whole quarter-hour bucket and is cached per
 * (zone, bucket). Asking Intl for it costs far more than formatting a timestamp.
 */
const quarterHourMs = 15 * 60_000
const offsetCache = new Map<string, number>()
const offsetCacheLimit = 4096

/** Minutes east of UTC for the zone at the instant `ms`. */
export function offsetMinutes(ms: number, zone: string): number {
  const fixed = fixedOffsetPattern.exec(zone)
  if (fixed) return (fixed[1] === '-' ? -1 : 1) * (Number(fixed[2]) * 60 + Number(fixed[3]))
  if (zone === 'UTC' || zone === 'Etc/UTC') return 0
  const bucket = Math.floor(ms / quarterHourMs)
  const key = `${zone}|${bucket}`
  const cached = offsetCache.get(key)
  if (cached !== undefined) return cached
  const minutes = intlOffsetMinutes(bucket * quarterHourMs, zone)
  if (offsetCache.size >= offsetCacheLimit) offsetCache.clear()
  offsetCache.set(key, minutes)
  return minutes
}

function intlOffsetMinutes(ms: number, zone: string): number {
  const parts: Record<string, number> = {}
  for (const part of formatterFor(zone).formatToParts(new Date(ms))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value)
  }
  const asUtc = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second)
  return Math.round((asUtc - Math.floor(ms / 1000) * 1000) / 60000)
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0')

/**
 * Active orders show the same few timestamps in every answer; formatting each once per
 * zone (a bounded cache, emptied when full) keeps list answers cheap.
 */
const formatted = new Map<string, string>()
const formattedLimit = 10_000

/** "YYYY-MM-DDTHH:MM:SS" in the gateway's zone, without an offset. */
export function formatLocal(ms: number, zone: string, separator: 'T' | ' ' = 'T'): string {
  const key = `${zone}|${separator}|${ms}`
  let text = formatted.get(key)
  if (text === undefined) {
    text = formatLocalUncached(ms, zone, separator)
    if (formatted.size >= formattedLimit) formatted.clear()
    formatted.set(key, text)
  }
  return text
}

function formatLocalUncached(ms: number, zone: string, separator: 'T' | ' '): string {
  const shifted = new Date(ms + offsetMinutes(ms, zone) * 60000)
  return (
    `${pad(shifted.getUTCFullYear(), 4)}-${pad(shifted.getUTCMonth() + 1)}-${pad(shifted.getUTCDate())}` +
    `${separator}${pad(shifted.getUTCHours())}:${pad(shifted.getUTCMinutes())}:${pad(shifted.getUTCSeconds())}`
  )
}

/** "+HH:MM" / "-HH:MM" for the zone at the instant `ms`. */
export function formatOffset(ms: number, zone: string): string {
  const minutes = offsetMinutes(ms, zone)
  const sign = minutes < 0 ? '-' : '+'
  const abs = Math.abs(minutes)
  return `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
}

/** "YYYY-MM-DDTHH:MM:SS+HH:MM": the order-summary timestamp form. */
export function formatWithOffset(ms: number, zone: string): string {
  return formatLocal(ms, zone) + formatOffset(ms, zone)
}

const localPattern = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(Z|[+-]\d{2}:\d{2})?$/

/**
 * Reads a wall-clock time in the gateway's zone (or with an explicit offset when allowed).
 * Returns undefined for anything malformed or impossible (e.g. February 30th).
 */
export function parseLocal(
  text: string,
  zone: string,
  options: { separator?: 'T' | ' ' | 'either'; allowOffset?: boolean } = {},
): number | undefined {
  const match = localPattern.exec(text)
  if (!match) return undefined
  const separator = text[10]
  const wanted = options.separator ?? 'T'
  if (wanted !== 'either' && separator !== wanted) return undefined
  if (match[7] && !options.allowOffset) return undefined
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number)
  const asUtc = Date.UTC(year, month - 1, day, hour, minute, second)
  const check = new Date(asUtc)
  if (
    check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day ||
    hour > 23 || minute > 59 || second > 59
  ) return undefined
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
