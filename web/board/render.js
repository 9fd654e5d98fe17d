// Drawing the board: order cards (updated in place, so buttons keep focus), the floor view
// grouped by table, and today's statistics.
import { formatDuration, levelOf } from './orders.js'

const typeLabel = { ON_PREMISE: 'Dine-in', TO_GO: 'To go' }
const $ = (id) => document.getElementById(id)

function fillCard(card, order, now, target) {
  const elapsed = (now - order.startedAt) / 1000
  card.dataset.level = levelOf(elapsed, target)
  card.dataset.state = order.state
  card.dataset.paged = String(Boolean(order.paged))
  card.querySelector('.number').textContent = `#${order.name}`
  card.querySelector('.timer').textContent = formatDuration(elapsed)
  card.querySelector('.table').textContent = order.locationName ? order.locationName : '–'
  card.querySelector('.type').textContent = typeLabel[order.orderType] ?? order.orderType
  card.querySelector('.state').textContent = order.state
  card.querySelector('.paging').hidden = !order.paged
  // While an action on this order is in flight its buttons stay disabled.
  const busy = card.dataset.busy === 'true'
  card.querySelector('[data-action="page"]').disabled = busy || Boolean(order.paged)
  card.querySelector('[data-action="cancel"]').disabled = busy || !order.paged
  card.querySelector('[data-action="clear"]').disabled = busy
}

export function renderCards(orders, now, target) {
  const container = $('cards')
  const template = $('card-template')
  const seen = new Set()
  let previous = null
  for (const order of orders) {
    seen.add(order.uuid)
    let card = container.querySelector(`[data-uuid="${CSS.escape(order.uuid)}"]`)
    if (!card) {
      card = template.content.firstElementChild.cloneNode(true)
      card.dataset.uuid = order.uuid
      card.dataset.order = order.name
      card.setAttribute('aria-label', `Order ${order.name}`)
    }
    fillCard(card, order, now, target)
    // Keep DOM order equal to board order without touching cards already in place.
    const expected = previous ? previous.nextElementSibling : container.firstElementChild
    if (expected !== card) container.insertBefore(card, expected)
    previous = card
  }
  for (const card of [...container.children]) if (!seen.has(card.dataset.uuid)) card.remove()
  $('empty').hidden = orders.length > 0
  $('stat-active').textContent = String(orders.length)
}

/** Only the timers and colours change every second; everything else on frames. */
export function tickCards(orders, now, target) {
  const container = $('cards')
  for (const order of orders) {
    const card = container.querySelector(`[data-uuid="${CSS.escape(order.uuid)}"]`)
    if (!card) continue
    const elapsed = (now - order.startedAt) / 1000
    card.dataset.level = levelOf(elapsed, target)
    card.querySelector('.timer').textContent = formatDuration(elapsed)
  }
}

export function renderFloor(orders, now, target) {
  const groups = new Map()
  for (const order of orders) {
    const key = order.locationName || ''
    if (!groups.has(key)) groups.set(key, [])
    groups.get(key).push(order)
  }
  const keys = [...groups.keys()].sort((a, b) => (a === '' ? -1 : b === '' ? 1 : Number(a) - Number(b)))
  const floor = $('floor')
  floor.replaceChildren(
    ...keys.map((key) => {
      const tile = document.createElement('section')
      tile.className = key ? 'table-tile' : 'table-tile waiting'
      tile.dataset.table = key || 'none'
      const heading = document.createElement('h3')
      heading.textContent = key ? `Table ${key}` : 'Not on a table yet'
      const chips = document.createElement('ul')
      for (const order of groups.get(key)) {
        const chip = document.createElement('li')
        const elapsed = (now - order.startedAt) / 1000
        chip.className = 'chip'
        chip.dataset.level = levelOf(elapsed, target)
        chip.dataset.order = order.name
        chip.textContent = `#${order.name} · ${formatDuration(elapsed)}${order.paged ? ' · paging' : ''}`
        chips.append(chip)
      }
      tile.append(heading, chips)
      return tile
    }),
  )
  if (!keys.length) {
    const empty = document.createElement('p')
    empty.className = 'empty'
    empty.textContent = 'No active orders.'
    floor.append(empty)
  }
}

export function renderStatistics(stats) {
  $('stat-orders').textContent = String(stats.ordersToday ?? '–')
  $('stat-average').textContent = Number.isFinite(stats.averageSeconds) ? formatDuration(stats.averageSeconds) : '–'
  $('stat-goal').textContent = Number.isFinite(stats.percentGoal) ? `${Math.round(stats.percentGoal)} %` : '–'
  $('stat-exceeded').textContent = String(stats.exceededToday ?? '–')
  $('stat-target').textContent = Number.isFinite(stats.targetTime) ? formatDuration(stats.targetTime) : '–'
}

let toastTimer = null
export function showToast(message) {
  const toast = $('toast')
  toast.textContent = message
  toast.hidden = false
  clearTimeout(toastTimer)
  toastTimer = setTimeout(() => {
    toast.hidden = true
  }, 4000)
}
