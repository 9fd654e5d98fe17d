// This screen's look and what it shows: which orders (all, only to go, only dine-in, only
// those at the tables of one area of the floor plan: "area:Terrace"), the
// theme (dark, or light for a bright room), clock times in 24- or 12-hour form, and the
// language. Like the card size and the reminders, they are the named screen's settings kept
// on the gateway (GET/POST /api/v2/board/settings, docs/api.md "Screen settings"); the
// browser keeps a copy so the screen starts with them before the gateway answers.
const storageKey = 'trackerGateway.screen'
export const prefChoices = {
  filter: ['all', 'to-go', 'dine-in'],
  theme: ['dark', 'light'],
  hours: ['24', '12'],
  language: ['en', 'es', 'de'],
}
/** An area filter as the gateway takes it: "area:" and a name without spaces around it (lib/settings/floor.ts). */
export const isAreaFilter = (value) => typeof value === 'string' && /^area:[^\s\p{Cc}](?:[^\p{Cc}]*[^\s\p{Cc}])?$/u.test(value) && value.length <= 29
/** Whether `value` is one of the choices for `key` (a filter may also name an area). */
export const isPrefChoice = (key, value) => prefChoices[key].includes(value) || (key === 'filter' && isAreaFilter(value))
export const defaultPrefs = { filter: 'all', theme: 'dark', hours: '24', language: 'en' }

/** The copy kept in the browser; a value this version does not know falls back to its default. */
export function readPrefs(storage = localStorage) {
  let stored = {}
  try {
    stored = JSON.parse(storage.getItem(storageKey) ?? '{}') ?? {}
  } catch {
    // A copy that is not JSON is ignored: the gateway's settings replace it.
  }
  const prefs = { ...defaultPrefs }
  for (const key of Object.keys(prefChoices)) if (isPrefChoice(key, stored[key])) prefs[key] = stored[key]
  return prefs
}

export function savePrefs(prefs, storage = localStorage) {
  storage.setItem(storageKey, JSON.stringify(prefs))
}

/**
 * Whether a screen with `filter` shows `order` (to go, or dine-in: every order not to go; an
 * area: an order located at a table of that area, `areaOf(order)` from the floor plan, so an
 * order at no table yet is not shown there).
 */
export function showsOrder(filter, order, areaOf = () => undefined) {
  if (isAreaFilter(filter)) return areaOf(order) === filter.slice('area:'.length)
  if (filter === 'to-go') return order.orderType === 'TO_GO'
  if (filter === 'dine-in') return order.orderType !== 'TO_GO'
  return true
}

/** A clock time ("14:05", "2:05 PM") in the screen's language and hour form, by the browser's Intl. */
export function clockTime(ms, { hours, language }) {
  return new Intl.DateTimeFormat(language, { hour: 'numeric', minute: '2-digit', hourCycle: hours === '12' ? 'h12' : 'h23' }).format(new Date(ms))
}
