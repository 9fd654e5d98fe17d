// Regular expressions that say exactly which texts the API accepts, written out so the
// OpenAPI document can carry them as `pattern`s (JSON Schema has no "a number at most N" for
// text, nor "a real calendar date"). tests/lib/api/patterns.test.ts checks each against the
// arithmetic it stands for.

/** Canonical decimal 1..max (no leading zeros), as a regex source without anchors. */
export function upTo(max: number): string {
  const digits = String(max)
  const alternatives: string[] = []
  // Shorter numbers: any digits.
  if (digits.length === 2) alternatives.push('[1-9]')
  if (digits.length > 2) alternatives.push(`[1-9][0-9]{0,${digits.length - 2}}`)
  // Same length: a prefix of max, then one digit below max's, then anything.
  for (let i = 0; i < digits.length; i++) {
    const digit = Number(digits[i])
    const low = i === 0 ? 1 : 0
    if (digit - 1 < low) continue
    const rest = digits.length - i - 1
    const range = digit - 1 === low ? String(low) : `[${low}-${digit - 1}]`
    alternatives.push(`${digits.slice(0, i)}${range}${rest ? `[0-9]{${rest}}` : ''}`.replace('[0-9]{1}', '[0-9]'))
  }
  alternatives.push(digits)
  return `(?:${alternatives.join('|')})`
}

export const maxInt32 = 2 ** 31 - 1

/** 1..2^31-1 as digits, leading zeros allowed (the length limit is separate: maxLength 10). */
export const positiveIntText = `^0*${upTo(maxInt32)}$`

const uuidText = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}'
export const uuidPattern = `^${uuidText}$`

// A real calendar date, years 0100-9999 (the Date arithmetic maps years below 100 to 19xx,
// so they are refused): 31-day months, 30-day months, February to the 28th, and the 29th in
// leap years (divisible by 4, centuries only when divisible by 400).
const year = '(?:0[1-9][0-9]{2}|[1-9][0-9]{3})'
const fourMultiple = '(?:0[48]|[2468][048]|[13579][26])'
const leapYear = `(?:(?:0[1-9]|[1-9][0-9])${fourMultiple}|${fourMultiple}00)`
const monthDay = '(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))'
const date = `(?:${year}-${monthDay}|${leapYear}-02-29)`
const clock = '(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]'

/** v2 date filters: YYYY-MM-DDTHH:MM:SS. */
export const localDateTimeT = `^${date}T${clock}$`
/** v1 date filters: a space or T, and optionally Z or ±HH:MM. */
export const localDateTimeV1 = `^${date}[T ]${clock}(?:Z|[+-][0-9]{2}:[0-9]{2})?$`

/** limit: 1..100, leading zeros allowed. */
export const limitText = `^0*${upTo(100)}$`
/** offset and as_of: up to 10 digits. */
export const countText = '^[0-9]{1,10}$'
/** target_time: a positive decimal, 1-9 significant integer digits, up to 6 decimals. */
const decimals = '(?:\\.[0-9]{1,6})?'
const nonZeroDecimals = '\\.(?:[1-9][0-9]{0,5}|0[1-9][0-9]{0,4}|00[1-9][0-9]{0,3}|000[1-9][0-9]{0,2}|0000[1-9][0-9]?|00000[1-9])'
export const positiveDecimalText = `^(?:0*[1-9][0-9]{0,8}${decimals}|0+${nonZeroDecimals})$`
