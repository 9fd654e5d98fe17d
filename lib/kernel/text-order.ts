// Sort orders for the gateway's identifiers that do not go through String.prototype.localeCompare:
// its first call builds ICU's collator (about 3 MB of resident memory) for strings whose
// order needs none of it (docs/architecture.md, "Local time").

/**
 * Code-unit order. For radio addresses ("00:12:4b:00:01:02:03:04": lowercase hex digits
 * with colons at fixed places) this is the order localeCompare gives too.
 */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/**
 * localeCompare's order for strings of ASCII letters and digits (store ids such as
 * "vKd3Ta9xQ1bZ0pLm"): digits before letters and letters compared ignoring case first;
 * only between strings equal but for case, the first differing letter decides, lower case
 * first. That is ICU's root collation for these characters; other characters are not
 * promised its order.
 */
export function byLettersAndDigits(a: string, b: string): number {
  const folded = byCodeUnits(a.toLowerCase(), b.toLowerCase())
  if (folded !== 0) return folded
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return a[i]! > b[i]! ? -1 : 1 // same letter: the lowercase one (higher code) first
  }
  return 0
}
