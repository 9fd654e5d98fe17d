// "This screen", below the orders (after them in tab order, far from Sound): the card size,
// how often late orders remind, when the offline alarm sounds, which orders it shows, its
// theme, hour form and language, approving a new screen's code, and signing out, which asks
// first, so one stray tap cannot lock the pass out. The settings are the named screen's, kept
// on the gateway (GET/POST /api/v2/board/settings); an admin may pick another screen and
// set its settings from here (/api/v2/board/screens). The browser keeps a copy of its own.
import { api, ApiError } from './api.js'
import { readDensity, saveDensity } from './fit.js'
import { readReminderSeconds, saveReminderSeconds } from './reminders.js'
import { readOfflineAlarmSeconds, saveOfflineAlarmSeconds } from './offline-alarm.js'
import { isPrefChoice, prefChoices, readPrefs, savePrefs } from './screen-prefs.js'
import { t } from './i18n.js'

const $ = (id) => document.getElementById(id)
const numberKeys = { reminder: 'reminderSeconds', 'offline-alarm': 'offlineAlarmSeconds' }
const prefFields = { filter: 'screen-filter', theme: 'screen-theme', hours: 'screen-hours', language: 'screen-language' }

/** This browser's copy of its own settings, in the gateway's keys. */
function localSettings(sound) {
  return {
    density: readDensity(),
    reminderSeconds: readReminderSeconds(),
    offlineAlarmSeconds: readOfflineAlarmSeconds(),
    sound: sound.enabled,
    ...readPrefs(),
  }
}

/** Keeps `settings` (the gateway's keys) as this browser's own copy; unknown values are skipped. */
function keepLocally(settings) {
  if (settings.density !== undefined) saveDensity(settings.density)
  if (settings.reminderSeconds !== undefined) saveReminderSeconds(settings.reminderSeconds)
  if (settings.offlineAlarmSeconds !== undefined) saveOfflineAlarmSeconds(settings.offlineAlarmSeconds)
  const prefs = readPrefs()
  for (const key of Object.keys(prefChoices)) if (isPrefChoice(key, settings[key])) prefs[key] = settings[key]
  savePrefs(prefs)
}

/**
 * @param {{ onDensity: (density: string) => void, onPrefs: (prefs: object) => void, onSignOut: () => void,
 *   sound: { enabled: boolean, toggle: () => void }, onError: (error: unknown) => void }} deps
 */
export function setupScreenSettings({ onDensity, onPrefs, onSignOut, sound, onError }) {
  /** Whose settings the form shows: null for this screen's own, else another screen's name (an admin's choice). */
  let editing = null
  let own = { name: null, settings: {} }

  const fill = (settings) => {
    $('density').value = settings.density
    $('reminder').value = String(settings.reminderSeconds)
    $('offline-alarm').value = String(settings.offlineAlarmSeconds)
    showAreas(settings.filter)
    for (const [key, id] of Object.entries(prefFields)) $(id).value = settings[key]
  }
  /** The floor plan's areas, offered as filters; `chosen` (an area the plan no longer has) too, so it shows. */
  let areas = []
  const showAreas = (chosen = $('screen-filter').value) => {
    const select = $('screen-filter')
    const names = [...new Set([...areas, ...(chosen?.startsWith('area:') ? [chosen.slice('area:'.length)] : [])])]
    for (const option of select.querySelectorAll('option[data-area]')) option.remove()
    for (const name of names) {
      const option = new Option(t('onlyArea', { area: name }), `area:${name}`)
      option.dataset.area = name
      select.append(option)
    }
    select.value = chosen
  }
  const applyOwn = () => {
    onDensity(readDensity())
    onPrefs(readPrefs())
  }
  fill(localSettings(sound))

  /** This screen's settings as the gateway keeps them: the browser's copy, the form and the board follow. */
  const take = (screen) => {
    own = screen
    keepLocally(screen.settings)
    if (screen.settings.sound !== undefined && screen.settings.sound !== sound.enabled) sound.toggle()
    if (editing === null) fill(localSettings(sound))
    applyOwn()
  }
  /** Own changes on their way to the gateway: the feed's frames meanwhile are older than them. */
  let sending = 0

  /** Sends a change: to this screen's own settings, or (an admin) to the screen being edited. */
  const send = async (change) => {
    const ownChange = editing === null
    if (ownChange) {
      keepLocally(change)
      applyOwn()
      sending += 1
    }
    try {
      const path = ownChange ? '/api/v2/board/settings' : `/api/v2/board/screens/${encodeURIComponent(editing)}`
      const { screen } = await api('POST', path, change)
      $('settings-result').textContent = ownChange ? '' : t('savedFor', { name: screen.name })
      // The answer holds every change made so far; the last one sent is the newest there is.
      if (ownChange && sending === 1) take(screen)
    } catch (error) {
      // A read-only display keeps its choice in this browser only; offline, it is sent with the next change.
      if (error instanceof ApiError && error.status === 403) $('settings-result').textContent = t('keptLocally')
      else if (!(error instanceof TypeError)) onError(error)
    } finally {
      if (ownChange) sending -= 1
    }
  }
  $('density').addEventListener('change', () => send({ density: $('density').value }))
  for (const [id, key] of Object.entries(numberKeys)) $(id).addEventListener('change', () => send({ [key]: Number($(id).value) }))
  for (const [key, id] of Object.entries(prefFields)) $(id).addEventListener('change', () => send({ [key]: $(id).value }))

  // An admin picks whose settings the form shows.
  $('settings-for').addEventListener('change', async () => {
    const name = $('settings-for').value
    editing = name === '' || name === own.name ? null : name
    $('settings-result').textContent = ''
    if (editing === null) return fill(localSettings(sound))
    try {
      const { screens } = await api('GET', '/api/v2/board/screens')
      const other = screens.find((screen) => screen.name === editing)
      fill({ ...localSettings(sound), ...defaultsForOthers, ...other?.settings })
    } catch (error) {
      onError(error)
    }
  })

  const confirm = (open) => {
    $('sign-out-confirm').hidden = !open
    $('forget-token').setAttribute('aria-expanded', String(open))
    if (open) $('sign-out-no').focus()
  }
  $('forget-token').addEventListener('click', () => confirm(true))
  $('sign-out-no').addEventListener('click', () => {
    confirm(false)
    $('forget-token').focus()
  })
  // Escape backs out of the question, like "Stay signed in".
  $('sign-out-confirm').addEventListener('keydown', (event) => {
    if (event.key !== 'Escape') return
    event.preventDefault()
    confirm(false)
    $('forget-token').focus()
  })
  $('sign-out-yes').addEventListener('click', () => {
    confirm(false)
    onSignOut()
  })

  $('approve-form').addEventListener('submit', async (event) => {
    event.preventDefault()
    const name = $('approve-name').value.trim()
    try {
      const scope = $('approve-scope').value
      const { screen } = await api('POST', '/api/v2/board/pairing/approve', { code: $('approve-code').value.trim(), scope, ...(name ? { name } : {}) })
      $('approve-result').textContent = t('approved', { name: screen.name, scope: screen.scope })
      $('approve-code').value = ''
      $('approve-name').value = ''
    } catch (error) {
      $('approve-result').textContent = error instanceof ApiError ? error.message : String(error.message ?? error)
    }
  })

  return {
    reminderSeconds: () => readReminderSeconds(),
    offlineAlarmSeconds: () => readOfflineAlarmSeconds(),
    /**
     * This screen's settings from the gateway (on sign-in and with the figures): those kept
     * there win; keys never set there are sent up from this browser's copy, so the choices
     * made before the settings moved to the gateway are kept.
     */
    async refresh() {
      try {
        const { screen } = await api('GET', '/api/v2/board/settings')
        take(screen)
        const missing = Object.fromEntries(Object.entries(localSettings(sound)).filter(([key]) => screen.settings[key] === undefined))
        // only=missing: a key an admin set between this GET and the POST stays the admin's.
        if (Object.keys(missing).length && document.body.dataset.scope !== 'read')
          await api('POST', '/api/v2/board/settings?only=missing', missing).catch(() => {})
      } catch {
        // Offline or not allowed: the browser's copy stands.
      }
    },
    /**
     * This screen's settings from the live feed, sent whenever they change (an admin's change
     * shows at once, not at the next refresh). Skipped while a change made here is on its way:
     * its answer is newer.
     */
    take(screen) {
      if (sending === 0) take(screen)
    },
    /** The screens an admin may set, for the "Settings for" list (its own first). */
    async listScreens() {
      try {
        const { screens } = await api('GET', '/api/v2/board/screens')
        const select = $('settings-for')
        const names = screens.map((screen) => screen.name).filter((name) => name !== own.name)
        select.replaceChildren(
          new Option(own.name ? t('thisScreenNamed', { name: own.name }) : t('thisScreen'), ''),
          ...names.map((name) => new Option(name, name)),
        )
        // Drawn again (a new language, a screen signed in): the screen being edited stays chosen.
        if (editing !== null && names.includes(editing)) select.value = editing
        else if (editing !== null) {
          editing = null
          fill(localSettings(sound))
        }
        $('settings-for-row').hidden = false
      } catch {
        $('settings-for-row').hidden = true
      }
    },
    /** The floor plan's areas (it was read, or arranged): the "Show" list offers each. */
    setAreas(names) {
      areas = names
      showAreas()
    },
    /** Sound switched on this screen: kept with its other settings. */
    soundChanged() {
      if (editing === null) void send({ sound: sound.enabled })
    },
  }
}

/** What another screen shows for a key it never set: the board's defaults. */
const defaultsForOthers = { density: 'auto', reminderSeconds: 60, offlineAlarmSeconds: 60, filter: 'all', theme: 'dark', hours: '24', language: 'en' }
