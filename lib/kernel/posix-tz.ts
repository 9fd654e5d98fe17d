// The POSIX TZ strings of TZif footers (RFC 8536 3.3, with its extensions: hours of a
// transition time from -167 to 167, "<+0545>"-style quoted names). A footer says what the
// offset is after the last transition stored in a zone file: for a "slim" file, almost
// always. Forms: "<-03>3" (no DST), "CET-1CEST,M3.5.0,M10.5.0/3", "IST-2IDT,M3.4.4/26,M10.5.0",
// "EST5EDT,0/0,J365/25" (DST all year), Jn (1-365, February 29 never counted) and n (0-365).
import type { LocalTimeType } from './tzif.ts'

/** One end of the DST period: a day rule and the local time of day (seconds) it happens at. */
type DayRule =
  | { kind: 'julian-no-leap'; day: number } // Jn
  | { kind: 'zero-based'; day: number } // n
  | { kind: 'month-week-day'; month: number; week: number; weekday: number } // Mm.w.d

interface Transition {
  rule: DayRule
  /** Seconds after local midnight (may be negative or beyond a day). */
  time: number
}

export interface PosixTz {
  std: LocalTimeType
  dst?: { type: LocalTimeType; start: Transition; end: Transition }
}

export class PosixTzError extends Error {
  override name = 'PosixTzError'
}

const secondsPerDay = 86_400

class Reader {
  readonly text: string
  at = 0
  constructor(text: string) {
    this.text = text
  }
  get done(): boolean {
    return this.at >= this.text.length
  }
  peek(): string {
    return this.text[this.at] ?? ''
  }
  fail(what: string): never {
    throw new PosixTzError(`bad TZ string ${JSON.stringify(this.text)}: ${what} at ${this.at}`)
  }
  take(pattern: RegExp, what: string): string {
    pattern.lastIndex = this.at
    const match = pattern.exec(this.text)
    if (!match) this.fail(`expected ${what}`)
    this.at += match[0].length
    return match[0]
  }
}

const quotedName = /<[A-Za-z0-9+-]{3,}>/y
const plainName = /[A-Za-z]{3,}/y
const hms = /[+-]?\d{1,3}(?::\d{1,2}(?::\d{1,2})?)?/y

function readName(r: Reader): void {
  r.take(r.peek() === '<' ? quotedName : plainName, 'a zone abbreviation')
}

/** [+-]hh[:mm[:ss]] in seconds, hours at most `maxHours`. */
function readHms(r: Reader, maxHours: number, what: string): number {
  const text = r.take(hms, what)
  const sign = text.startsWith('-') ? -1 : 1
  const [h, m = 0, s = 0] = text.replace(/^[+-]/, '').split(':').map(Number) as [number, number?, number?]
  if (h > maxHours || m > 59 || s > 59) r.fail(`${what} out of range`)
  return sign * (h * 3600 + m * 60 + s)
}

function readInt(r: Reader, min: number, max: number, what: string): number {
  const value = Number(r.take(/\d+/y, what))
  if (value < min || value > max) r.fail(`${what} out of range`)
  return value
}

function readTransition(r: Reader): Transition {
  let rule: DayRule
  if (r.peek() === 'J') {
    r.at++
    rule = { kind: 'julian-no-leap', day: readInt(r, 1, 365, 'a Julian day') }
  } else if (r.peek() === 'M') {
    r.at++
    const month = readInt(r, 1, 12, 'a month')
    r.take(/\./y, '"."')
    const week = readInt(r, 1, 5, 'a week')
    r.take(/\./y, '"."')
    rule = { kind: 'month-week-day', month, week, weekday: readInt(r, 0, 6, 'a weekday') }
  } else {
    rule = { kind: 'zero-based', day: readInt(r, 0, 365, 'a day of the year') }
  }
  let time = 2 * 3600
  if (r.peek() === '/') {
    r.at++
    time = readHms(r, 167, 'a transition time')
  }
  return { rule, time }
}

/** Parses a footer TZ string ("" means no rule: the caller keeps the last transition's type). */
export function parsePosixTz(text: string): PosixTz {
  const r = new Reader(text)
  readName(r)
  // POSIX offsets count west of Greenwich; the gateway counts east.
  const std: LocalTimeType = { utoff: -readHms(r, 24, 'an offset'), isDst: false }
  if (r.done) return { std }
  readName(r)
  const type: LocalTimeType = { utoff: std.utoff + 3600, isDst: true }
  if (r.peek() !== ',') type.utoff = -readHms(r, 24, 'a DST offset')
  // Without a rule POSIX leaves the dates to the implementation; zic always writes one.
  if (r.peek() !== ',') r.fail('expected the DST rule')
  r.at++
  const start = readTransition(r)
  r.take(/,/y, '","')
  const end = readTransition(r)
  if (!r.done) r.fail('unexpected text')
  return { std, dst: { type, start, end } }
}

/** Days from 1970-01-01 to the given proleptic Gregorian date (month 1-12); no Date involved. */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yearOfEra = y - era * 400
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear
  return era * 146_097 + dayOfEra - 719_468
}

const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
const monthLengths = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

/** Days since 1970 of the local date a rule names in `year`. */
function ruleDay(rule: DayRule, year: number): number {
  const january1 = daysFromCivil(year, 1, 1)
  switch (rule.kind) {
    case 'julian-no-leap':
      return january1 + rule.day - 1 + (isLeap(year) && rule.day >= 60 ? 1 : 0)
    case 'zero-based':
      return january1 + rule.day
    case 'month-week-day': {
      const first = daysFromCivil(year, rule.month, 1)
      const firstWeekday = (((first + 4) % 7) + 7) % 7 // 1970-01-01 was a Thursday
      let dayOfMonth = 1 + ((rule.weekday - firstWeekday + 7) % 7) + (rule.week - 1) * 7
      const length = monthLengths[rule.month - 1]! + (rule.month === 2 && isLeap(year) ? 1 : 0)
      while (dayOfMonth > length) dayOfMonth -= 7 // week 5: the last such weekday
      return first + dayOfMonth - 1
    }
  }
}

/** The year (proleptic Gregorian, UTC) of an instant in seconds since 1970. */
function yearOf(seconds: number): number {
  // Civil-from-days, the inverse of daysFromCivil (only the year is needed).
  const z = Math.floor(seconds / secondsPerDay) + 719_468
  const era = Math.floor(z / 146_097)
  const dayOfEra = z - era * 146_097
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365)
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100))
  const monthIndex = Math.floor((5 * dayOfYear + 2) / 153)
  return yearOfEra + era * 400 + (monthIndex >= 10 ? 1 : 0)
}

/**
 * The local time type in force at `seconds` (since 1970 UTC). The DST start is given in
 * standard time and the end in DST (POSIX); a start or end may spill into a neighbouring
 * year (hours up to 167), so the changes of the years around the instant are put in order
 * and the last one not after it wins. Ties go to the later year's change, which keeps
 * "DST all year" ("0/0,J365/25": one year's end is the next year's start) in DST.
 */
export function posixTypeAt(tz: PosixTz, seconds: number): LocalTimeType {
  const dst = tz.dst
  if (!dst) return tz.std
  const year = yearOf(seconds)
  let best: { at: number; type: LocalTimeType } | undefined
  for (let y = year - 2; y <= year + 1; y++) {
    const changes = [
      { at: ruleDay(dst.start.rule, y) * secondsPerDay + dst.start.time - tz.std.utoff, type: dst.type },
      { at: ruleDay(dst.end.rule, y) * secondsPerDay + dst.end.time - dst.type.utoff, type: tz.std },
    ]
    for (const change of changes) {
      if (change.at <= seconds && (!best || change.at >= best.at)) best = change
    }
  }
  // Unreachable for the rules POSIX allows (two years back always holds a change).
  return best?.type ?? tz.std
}
