// "This screen", below the orders (after them in tab order, far from Sound): the card size,
// how often late orders remind, approving a new screen's code, and signing out, which asks
// first, so one stray tap cannot lock the pass out.
import { api, ApiError } from './api.js'
import { readDensity, saveDensity } from './fit.js'
import { readReminderSeconds, saveReminderSeconds } from './reminders.js'

const $ = (id) => document.getElementById(id)

/** @param {{ onDensity: (density: string) => void, onSignOut: () => void }} deps */
export function setupScreenSettings({ onDensity, onSignOut }) {
  $('density').value = readDensity()
  $('density').addEventListener('change', () => {
    saveDensity($('density').value)
    onDensity($('density').value)
  })
  $('reminder').value = String(readReminderSeconds())
  $('reminder').addEventListener('change', () => saveReminderSeconds(Number($('reminder').value)))

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
      $('approve-result').textContent = `Approved: the new screen is signed in as ${screen.name} (scope ${screen.scope}).`
      $('approve-code').value = ''
      $('approve-name').value = ''
    } catch (error) {
      $('approve-result').textContent = error instanceof ApiError ? error.message : String(error.message ?? error)
    }
  })
  return { reminderSeconds: () => readReminderSeconds() }
}
