// Drawing the order cards (updated in place, so buttons keep focus) and today's figures.
// A card's headline is the identifier a runner needs (the table, else the order number) and
// how long the guest has waited;
// the whole card takes the colour of its state against the target, with a shape and a word.
import { actionLabels, actionsFor, levelBadges } from './actions.js'
import { formatDuration, isLate, levelOf } from './orders.js'
import { currentLanguage, t } from './i18n.js'

const typeLabel = { ON_PREMISE: 'typeDineIn', TO_GO: 'typeToGo' }
const stateLabel = { started: 'stateStarted', located: 'stateLocated' }
const $ = (id) => document.getElementById(id)

/**
 * One number per card, the one the pass calls out: the table for an order on a table, else
 * the order (tracker) number the guest holds, headed by the word that says which ("Table 6",
 * "Order 9"). No second number is shown beside it (a "Table #9" under a "6" was read as
 * table 9); the order number of a table's card is in its accessible name.
 */
function fillWhere(card, order) {
  const where = order.locationName ? 'table' : order.orderType === 'TO_GO' ? 'togo' : 'none'
  card.dataset.where = where
  // The one number the pass calls out, and what the search (n, digits, Enter) matches.
  card.dataset.callout = where === 'table' ? String(order.locationName) : String(order.name)
  card.querySelector('.callout-label').textContent = t(where === 'table' ? 'calloutTable' : 'calloutOrder')
  card.querySelector('.callout').textContent = card.dataset.callout
  card.querySelector('.where-label').textContent = where === 'togo' ? t('whereToGo') : where === 'none' ? t('whereNoTableYet') : ''
  card.querySelector('.where-label').hidden = where === 'table'
  return where
}

/** What a screen reader says for a card: "Table 12, order 7, late, paging". */
function cardName(order, level) {
  const numbers = { table: order.locationName, order: order.name }
  const where = t(order.locationName ? 'cardNameTable' : order.orderType === 'TO_GO' ? 'cardNameToGo' : 'cardNameNoTable', numbers)
  return t(order.paged ? 'cardNameLevelPaging' : 'cardNameLevel', { where, level: t(levelBadges[level].key).toLocaleLowerCase(currentLanguage()) })
}

/** "table 12" or "order 7": what the buttons and the card are named after; `start`: at the start of a sentence. */
export function cardSubject(order, { start = false } = {}) {
  const key = order.locationName ? (start ? 'subjectTableStart' : 'subjectTable') : start ? 'subjectOrderStart' : 'subjectOrder'
  return t(key, { table: order.locationName, order: order.name })
}

function fillLevel(card, order, now, target) {
  const elapsed = (now - order.startedAt) / 1000
  const level = levelOf(elapsed, target)
  card.dataset.level = level
  card.querySelector('.timer').textContent = formatDuration(elapsed)
  card.querySelector('.badge-text').textContent = t(levelBadges[level].key)
  return level
}

function actionButton(action, subject, className = '') {
  const button = document.createElement('button')
  button.type = 'button'
  button.dataset.action = action
  button.textContent = t(actionLabels[action])
  button.setAttribute('aria-label', t('actionOn', { action: t(actionLabels[action]), subject }))
  if (className) button.className = className
  return button
}

/**
 * @param {{ pending: (uuid: string) => number | null, disabled: boolean }} context
 *   pending: seconds left in the undo window of a cleared order, null when not being cleared.
 */
function fillCard(card, order, now, target, context) {
  const level = fillLevel(card, order, now, target)
  fillWhere(card, order)
  const subject = cardSubject(order)
  card.dataset.state = order.state
  card.dataset.paged = String(Boolean(order.paged))
  card.setAttribute('aria-label', cardName(order, level))
  card.querySelector('.type').textContent = typeLabel[order.orderType] ? t(typeLabel[order.orderType]) : order.orderType
  card.querySelector('.state').textContent = stateLabel[order.state] ? t(stateLabel[order.state]) : order.state
  card.querySelector('.paging').hidden = !order.paged
  const left = context.pending(order.uuid)
  card.dataset.pending = String(left !== null)
  // A focused element that is hidden or disabled loses the focus to the page: the card
  // takes it first, so the selection (and the next bump) stays on it.
  if (left !== null) keepFocusOnCard(card, card.querySelector('.actions'))
  card.querySelector('.undo').hidden = left === null
  card.querySelector('.actions').hidden = left !== null
  if (left !== null) card.querySelector('.undo-text').textContent = t('clearingIn', { seconds: left })
  const { primary, others } = actionsFor(order)
  const main = card.querySelector('.primary')
  main.dataset.action = primary
  main.textContent = t(actionLabels[primary])
  main.setAttribute('aria-label', t('actionOn', { action: t(actionLabels[primary]), subject }))
  card.querySelector('.more').setAttribute('aria-label', t('moreActionsFor', { subject }))
  card.querySelector('.undo-button').setAttribute('aria-label', t('undoClearing', { subject }))
  const menu = card.querySelector('.menu')
  // Drawn again when its actions, its subject or the language change.
  const drawn = `${others.join(',')} ${subject} ${currentLanguage()}`
  if (menu.dataset.actions !== drawn) {
    menu.replaceChildren(...others.map((action) => actionButton(action, subject, action === 'clear' ? 'danger' : 'secondary')))
    menu.dataset.actions = drawn
  }
  // While an action is in flight, or the gateway is out of reach, the buttons stay disabled.
  const off = context.disabled || card.dataset.busy === 'true'
  if (off) keepFocusOnCard(card, card.querySelector('.actions'))
  for (const button of card.querySelectorAll('.actions button')) button.disabled = off
  card.querySelector('.undo-button').disabled = false
}

/** Moves the focus from inside `part` of a card to the card itself. */
function keepFocusOnCard(card, part) {
  if (part.contains(document.activeElement)) card.focus({ preventScroll: true })
}

export function renderCards(orders, now, target, context) {
  const container = $('cards')
  const template = $('card-template')
  const seen = new Set(orders.map((order) => order.uuid))
  // Cards that left go first: moving the others past them would take the focus away.
  for (const card of [...container.querySelectorAll('.card')]) if (!seen.has(card.dataset.uuid)) card.remove()
  let previous = null
  for (const order of orders) {
    let card = container.querySelector(`[data-uuid="${CSS.escape(order.uuid)}"]`)
    if (!card) {
      card = template.content.firstElementChild.cloneNode(true)
      card.dataset.uuid = order.uuid
      card.dataset.order = order.name
    }
    fillCard(card, order, now, target, context)
    // Keep DOM order equal to board order without touching cards already in place.
    const expected = previous ? previous.nextElementSibling : container.firstElementChild
    if (expected !== card) container.insertBefore(card, expected)
    previous = card
  }
  $('empty').hidden = orders.length > 0
}

/** Every second: timers, colours and undo countdowns; returns the orders that just turned late. */
export function tickCards(orders, now, target, context, lastLevels) {
  const container = $('cards')
  const turnedLate = []
  for (const order of orders) {
    const card = container.querySelector(`[data-uuid="${CSS.escape(order.uuid)}"]`)
    if (!card) continue
    const level = fillLevel(card, order, now, target)
    const before = lastLevels.get(order.uuid)
    if (level !== before) card.setAttribute('aria-label', cardName(order, level))
    // Turned late, or very late (twice the target): the card flashes and a tone sounds.
    if (isLate(level) && before && before !== level && before !== 'critical') {
      turnedLate.push(order)
      card.classList.remove('turned-late')
      void card.offsetWidth // restarts the animation
      card.classList.add('turned-late')
    }
    lastLevels.set(order.uuid, level)
    const left = context.pending(order.uuid)
    if (left !== null) card.querySelector('.undo-text').textContent = t('clearingIn', { seconds: left })
  }
  return turnedLate
}

/** Today's figures; "over target" adds the active orders already late to those cleared late. */
export function renderStatistics(stats, activeCount, lateActive) {
  $('stat-active').textContent = String(activeCount)
  $('stat-late-now').textContent = String(lateActive)
  $('stat-late-now').closest('div').dataset.late = String(lateActive > 0)
  if (!stats) return
  $('stat-orders').textContent = String(stats.ordersToday ?? '–')
  // No order cleared yet today: an average of 0:00 and 0 % within target would be false.
  const cleared = stats.ordersToday > 0
  $('stat-average').textContent = cleared && Number.isFinite(stats.averageSeconds) ? formatDuration(stats.averageSeconds) : '–'
  $('stat-goal').textContent =
    cleared && Number.isFinite(stats.percentGoal)
      ? new Intl.NumberFormat(currentLanguage(), { style: 'percent' }).format(Math.round(stats.percentGoal) / 100)
      : '–'
  $('stat-exceeded').textContent = Number.isFinite(stats.exceededToday) ? String(stats.exceededToday + lateActive) : '–'
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
