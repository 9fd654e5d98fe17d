// This screen's look and what it shows: which orders (all, only to go, only dine-in), the
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
  for (const key of Object.keys(prefChoices)) if (prefChoices[key].includes(stored[key])) prefs[key] = stored[key]
  return prefs
}

export function savePrefs(prefs, storage = localStorage) {
  storage.setItem(storageKey, JSON.stringify(prefs))
}

/** Whether a screen with `filter` shows `order` (to go, or dine-in: every order not to go). */
export function showsOrder(filter, order) {
  if (filter === 'to-go') return order.orderType === 'TO_GO'
  if (filter === 'dine-in') return order.orderType !== 'TO_GO'
  return true
}

/** A clock time ("14:05", "2:05 PM") in the screen's language and hour form, by the browser's Intl. */
export function clockTime(ms, { hours, language }) {
  return new Intl.DateTimeFormat(language, { hour: 'numeric', minute: '2-digit', hourCycle: hours === '12' ? 'h12' : 'h23' }).format(new Date(ms))
}
