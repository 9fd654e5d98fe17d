// The simulator panel, offered only when the gateway runs the simulated radio (the header's
// "Simulator" button opens it): start trackers on the dine-in or to-go starter, place them
// on tables, clear them at the pass. Moves the gateway refuses come back as a message.
import { ApiError, api } from './api.js'
import { t } from './i18n.js'

const $ = (id) => document.getElementById(id)

function describe(position) {
  if (!position || position.at === 'rack') return t('simInRack')
  if (position.at === 'guest') return t(position.orderType === 'TO_GO' ? 'simToGo' : 'simWithGuest')
  if (position.at === 'table') return t('simAtTable', { table: String(position.table) })
  return position.at
}

export function setupSimulator({ onError, onAvailable }) {
  const panel = $('simulator')
  let status = null

  function render() {
    const select = panel.querySelector('#sim-place select[name="table"]')
    if (select.options.length !== status.tables.length) {
      select.replaceChildren(...status.tables.map((table) => new Option(t('simTableOption', { table: String(table) }), String(table))))
    }
    const max = String(status.trackers.length)
    for (const input of panel.querySelectorAll('input[name="tracker"]')) input.max = max
    const start = panel.querySelector('#sim-start input[name="tracker"]')
    if (!start.value) {
      const free = status.trackers.find((candidate) => candidate.position?.at === 'rack')
      if (free) start.value = String(free.number)
    }
    $('sim-trackers').replaceChildren(
      ...status.trackers
        .filter((candidate) => candidate.position?.at !== 'rack' || candidate.buzzing)
        .map((tracker) => {
          const item = document.createElement('li')
          item.dataset.tracker = String(tracker.number)
          item.dataset.buzzing = String(Boolean(tracker.buzzing))
          item.textContent = `#${tracker.number} ${describe(tracker.position)}${tracker.buzzing ? ` · ${t('simBuzzing')}` : ''}`
          item.title = t('simUseTracker')
          item.addEventListener('click', () => {
            for (const input of panel.querySelectorAll('#sim-place input, #sim-clear input')) {
              input.value = String(tracker.number)
              delete input.dataset.typed
            }
          })
          return item
        }),
    )
  }

  async function refresh() {
    try {
      const body = await api('GET', '/api/v2/simulator')
      status = body.simulator ?? body
      onAvailable(true)
      render()
      return true
    } catch (error) {
      // 404 (-5): the gateway drives a real radio, so there is no simulator to show.
      if (error instanceof ApiError && error.status === 404) onAvailable(false)
      else onError(error)
      return false
    }
  }

  async function send(path, body, form) {
    for (const button of form.querySelectorAll('button')) button.disabled = true
    try {
      await api('POST', path, body)
      await refresh()
      return true
    } catch (error) {
      onError(error)
      return false
    } finally {
      for (const button of form.querySelectorAll('button')) button.disabled = false
    }
  }

  const trackerOf = (form) => Number(form.elements.tracker.value)
  for (const input of panel.querySelectorAll('#sim-place input, #sim-clear input')) {
    input.addEventListener('input', () => {
      input.dataset.typed = 'true'
    })
  }

  $('sim-start').addEventListener('submit', async (event) => {
    event.preventDefault()
    const form = event.currentTarget
    const toGo = event.submitter?.value === 'to-go'
    const submitted = form.elements.tracker.value
    if (await send('/api/v2/simulator/start', { tracker: Number(submitted), toGo }, form)) {
      // Pre-fill the place and clear forms, but never over a number someone typed there.
      for (const input of panel.querySelectorAll('#sim-place input, #sim-clear input')) {
        if (input.dataset.typed !== 'true') input.value = submitted
      }
      // Offer the next free tracker, unless someone typed another number meanwhile.
      if (form.elements.tracker.value === submitted) {
        form.elements.tracker.value = ''
        render()
      }
    }
  })
  $('sim-place').addEventListener('submit', (event) => {
    event.preventDefault()
    const form = event.currentTarget
    send('/api/v2/simulator/place', { tracker: trackerOf(form), table: Number(form.elements.table.value) }, form)
  })
  $('sim-clear').addEventListener('submit', (event) => {
    event.preventDefault()
    const form = event.currentTarget
    send('/api/v2/simulator/clear', { tracker: trackerOf(form) }, form)
  })

  return { refresh }
}
