// The order board: asks for an access token once, then shows the live active orders from
// the WebSocket feed, with paging and clearing through the v2 API. While the feed is down a
// banner says so and the board is greyed with its buttons off: nothing on it may look live.
import { ApiError, api, orderPath, tokenStore } from './board/api.js'
import { setupBumpBar } from './board/bump-bar.js'
import { drawOrders, drawTimes } from './board/charts.js'
import { connectFeed } from './board/feed.js'
import { chooseLayout, outOfView, overflowText, readDensity, straddling } from './board/fit.js'
import { setupFloor } from './board/floor.js'
import { areaOfOrder, areasOf } from './board/floor-plan.js'
import { fleetPill } from './board/fleet.js'
import { backupNotice } from './board/backup-notice.js'
import { mountClockNotice } from './board/clock-notice.js'
import { OrderBoard, isLate, lateNow, levelOf } from './board/orders.js'
import { waitForApproval } from './board/pairing.js'
import { RecentClears, whereText } from './board/recent.js'
import { LateReminders } from './board/reminders.js'
import { OfflineAlarm } from './board/offline-alarm.js'
import { cardSubject, renderCards, renderStatistics, showToast, tickCards } from './board/render.js'
import { actionsFor } from './board/actions.js'
import { setupScreenSettings } from './board/screen-settings.js'
import { clockTime, readPrefs, showsOrder } from './board/screen-prefs.js'
import { setLanguage, t, translatePage } from './board/i18n.js'
import { setupSimulator } from './board/simulator.js'
import { createSound } from './board/sound.js'
import { PendingClears } from './board/undo.js'
import { afterBump, keepSelection } from './board/selection.js'
import { deviceTokenName } from './board/token-name.js'
import { radioPill, setupNetworkMap } from './board/network-map.js'
import { showConnectionSecurity } from './board/connection-security.js'

const $ = (id) => document.getElementById(id)
const board = new OrderBoard()
const sound = createSound(localStorage, { onChange: () => showSound() })
/** This screen's filter, theme, hour form and language (web/board/screen-prefs.js). */
let prefs = readPrefs()
const reminders = new LateReminders()
const offlineAlarm = new OfflineAlarm()
const recent = new RecentClears()
/** Orders whose clear this screen sent (their ORDER_CLEARED is marked "this screen"). */
const sentHere = new Set()
/** Clears started here, newest last: what "undo" takes back first. */
const clearedHere = []
const lastLevels = new Map()
let targetSeconds = 300
let lastStats = null
let view = 'cards'
let range = 'day'
let live = false
let feed = null
let statsTimer = null
let offlineSoon = null
let simulator = null
let floor = null
let screenSettings = null
let density = readDensity()
let columns = 1
let pairing = null
/** The selected card's order (web/board/selection.js): what the bump bar's keys act on. */
let selectedUuid = null

const pending = new PendingClears({
  send: async (order, options) => {
    sentHere.add(order.uuid)
    await api('DELETE', orderPath(order), undefined, options)
    board.remove(order.uuid)
    recent.add({ uuid: order.uuid, name: order.name, orderType: order.orderType, table: order.locationName, clearedAt: Date.now(), here: true })
    renderRecent()
  },
  onChange: () => redraw(),
  // Not cleared after all: the card stays, with its buttons back.
  onFailed: (_order, error) => reportError(error),
})

/** The floor plan as last read (an area filter shows only the orders at that area's tables). */
let floorPlan = null
/** The orders this screen shows (its filter: all, to go, dine-in, an area). */
const screenOrders = () => board.list().filter((order) => showsOrder(prefs.filter, order, (located) => areaOfOrder(floorPlan, located)))
/** The orders a runner should see: those being cleared stay, with their Undo. */
const visibleOrders = () => screenOrders()
const cardContext = () => ({ pending: (uuid) => (pending.has(uuid) ? pending.secondsLeft(uuid) : null), disabled: !live })
const activeOrders = () => screenOrders().filter((order) => !pending.has(order.uuid))
const cardElements = () => [...$('cards').querySelectorAll('.card')]
const cardOf = (uuid) => (uuid === null ? null : $('cards').querySelector(`.card[data-uuid="${CSS.escape(uuid)}"]`))

function redraw() {
  const now = Date.now()
  const before = cardElements().map((card) => card.dataset.uuid)
  renderCards(visibleOrders(), now, targetSeconds, cardContext())
  followSelection(before)
  renderStatistics(lastStats, activeOrders().length, lateNow(activeOrders(), now, targetSeconds))
  if (view === 'floor') floor.render(now)
  fitCards()
  renderRecent()
}

/** The card size and columns that show every order, else the most (web/board/fit.js). */
function fitCards() {
  const container = $('cards')
  if ($('app').hidden || view !== 'cards') return updateOverflow()
  const remPx = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16
  const gap = parseFloat(getComputedStyle(container).rowGap) || 8
  const top = container.getBoundingClientRect().top + window.scrollY
  // A phone scrolls its one column: there, "auto" keeps the large cards.
  const preference = density === 'auto' && window.innerWidth <= 700 ? 'large' : density
  for (const card of cardElements()) card.style.marginTop = ''
  const layout = chooseLayout({
    width: container.clientWidth,
    height: window.innerHeight - top - remPx,
    gap,
    remPx,
    preference,
    contentHeight: (size, count) => {
      container.dataset.size = size
      container.style.gridTemplateColumns = `repeat(${count}, minmax(0, 1fr))`
      return container.getBoundingClientRect().height
    },
  })
  container.dataset.size = layout.size
  container.style.gridTemplateColumns = `repeat(${layout.columns}, minmax(0, 1fr))`
  columns = layout.columns
  updateOverflow()
  if (!$('overflow').hidden) {
    // The row cut by the bar goes below the screen: no half card with its buttons under it.
    const fold = window.innerHeight - $('overflow').offsetHeight
    const cards = cardElements()
    const boxes = cards.map((card) => {
      const { top, bottom } = card.getBoundingClientRect()
      return { top: top + window.scrollY, bottom: bottom + window.scrollY }
    })
    for (const index of straddling(boxes, fold)) cards[index].style.marginTop = `${Math.ceil(window.innerHeight - boxes[index].top)}px`
    updateOverflow()
  }
  // For whoever waits for the layout after a resize (the browser tests).
  document.body.dataset.fitWidth = String(window.innerWidth)
}

/** The top of the band where cards can be seen: under the sticky header and banners. */
function bandTop() {
  return Math.max(
    0,
    ...['.topbar', '#offline', '#sound-blocked']
      .map((selector) => document.querySelector(selector))
      .filter((el) => el && !el.hidden)
      .map((el) => el.getBoundingClientRect().bottom),
  )
}

const cardLabel = (card) => (card.dataset.where === 'table' ? t('overflowTable', { table: card.dataset.callout }) : `#${card.dataset.order}`)

/** Counts the orders not on screen and says where they are. */
function updateOverflow() {
  const bar = $('overflow')
  if ($('app').hidden || view !== 'cards') {
    bar.hidden = true
    return
  }
  const measure = (bottom) =>
    outOfView(
      cardElements().map((card) => ({ ...rectOf(card), label: cardLabel(card) })),
      bandTop(),
      bottom,
    )
  const names = window.innerWidth <= 700 ? 0 : 6
  let hidden = measure(window.innerHeight)
  // The bar covers the bottom of the screen: measure again under it (its text may wrap).
  for (let round = 0; round < 3 && (hidden.above.length || hidden.below.length); round++) {
    setText(bar, overflowText(hidden, names))
    bar.hidden = false
    hidden = measure(window.innerHeight - bar.offsetHeight)
  }
  const text = overflowText(hidden, names)
  setText(bar, text)
  bar.hidden = text === ''
  bar.dataset.above = String(hidden.above.length)
  bar.dataset.below = String(hidden.below.length)
  // Room under the page's end, so the bar never covers the last buttons.
  document.body.dataset.overflow = String(!bar.hidden)
  $('app').style.paddingBottom = bar.hidden ? '' : `${bar.offsetHeight + 16}px`
}

/** Changes the text only when it differs: the bar is a live region, read out on change. */
function setText(element, text) {
  if (element.textContent !== text) element.textContent = text
}

function rectOf(card) {
  const { top, bottom } = card.getBoundingClientRect()
  return { top, bottom }
}

/** The cards on screen now, top-left first: what the position keys 1-9 count. */
function cardsInView() {
  const top = bandTop()
  const bottom = window.innerHeight - ($('overflow').hidden ? 0 : $('overflow').offsetHeight)
  return cardElements().filter((card) => {
    const { top: cardTop, bottom: cardBottom } = card.getBoundingClientRect()
    const middle = (cardTop + cardBottom) / 2
    return middle >= top && middle <= bottom
  })
}

/**
 * Selects a card: it is marked, and takes the focus (the card itself, which is never
 * disabled or hidden, so the focus stays while its buttons come and go).
 */
function selectCard(card) {
  selectedUuid = card.dataset.uuid
  markSelection()
  if (!card.contains(document.activeElement)) card.focus({ preventScroll: true })
  card.scrollIntoView({ block: 'nearest' })
}

function markSelection() {
  for (const card of cardElements()) {
    const selected = card.dataset.uuid === selectedUuid
    if ((card.dataset.selected === 'true') !== selected) card.dataset.selected = String(selected)
  }
}

/**
 * After the cards changed: the selection stays on its card, or moves to the next one when
 * its card left; the focus, if it was on the cards and got lost to the page, comes back.
 */
function followSelection(before) {
  const after = cardElements().map((card) => card.dataset.uuid)
  selectedUuid = keepSelection(before, after, selectedUuid)
  markSelection()
  const card = cardOf(selectedUuid)
  const lost = document.activeElement === null || document.activeElement === document.body
  if (card && lost && !$('app').hidden && view === 'cards') card.focus({ preventScroll: true })
}

/** A key that could not act says why, briefly, where the eye is. */
let sayTimer = null
function say(message) {
  const notice = $('key-notice')
  notice.textContent = message
  notice.hidden = false
  clearTimeout(sayTimer)
  sayTimer = setTimeout(() => {
    notice.hidden = true
  }, 2500)
}

/** The cards whose called-out number (the headline: table, else order) is `number`. */
function findCard(number) {
  const matches = cardElements().filter((card) => card.dataset.callout === number)
  if (!matches.length) return null
  // Typed again: the next card with that number (two orders on one table).
  const at = matches.findIndex((card) => card.dataset.uuid === selectedUuid)
  return matches[(at + 1) % matches.length]
}

function showSound() {
  const status = sound.status
  const toggle = $('sound-toggle')
  toggle.textContent = t({ off: 'soundOff', on: 'soundOn', starting: 'soundStarting', blocked: 'soundBlocked' }[status])
  toggle.setAttribute('aria-pressed', String(sound.enabled))
  toggle.dataset.sound = status
  // Blocked, with the board showing: a banner nobody can miss, which one tap fixes.
  $('sound-blocked').hidden = !(status === 'blocked' && !$('app').hidden)
  fitCards()
}

function setConnection(state, seconds) {
  live = state === 'live'
  offlineAlarm.connection(live, Date.now())
  document.body.dataset.connection = state
  clearTimeout(offlineSoon)
  if (live) {
    $('offline').hidden = true
    document.body.classList.remove('offline')
  } else {
    $('offline-detail').textContent = state === 'reconnecting' && seconds >= 1 ? t('tryingAgainIn', { seconds }) : t('tryingAgain')
    // A first connection gets a moment before the board is declared offline.
    const show = () => {
      $('offline').hidden = false
      document.body.classList.add('offline')
    }
    if (state === 'connecting' && $('offline').hidden) offlineSoon = setTimeout(show, 1500)
    else show()
  }
  redraw()
}

function reportError(error) {
  if (error instanceof ApiError && error.unauthorized) return signOut(t('tokenRejected'))
  // The gateway's own message (English, from the API) with its code.
  if (error instanceof ApiError) return showToast(t('errorWithCode', { message: error.message, code: String(error.returnCode ?? error.status) }))
  // fetch() failing means the gateway is out of reach: the banner says it better.
  showToast(error instanceof TypeError ? t('gatewayDidNotAnswer') : String(error.message ?? error))
}

async function refreshStatistics() {
  try {
    const body = await api('GET', '/api/v2/statistics')
    lastStats = body.statistics ?? body
    if (Number.isFinite(lastStats.targetTime) && lastStats.targetTime > 0) targetSeconds = lastStats.targetTime
    redraw()
  } catch (error) {
    if (error instanceof ApiError && error.unauthorized) reportError(error)
  }
}

async function refreshCharts() {
  try {
    const { hourly } = await api('GET', `/api/v2/statistics/hourly?range=${range}`)
    drawTimes($('chart-times'), hourly)
    drawOrders($('chart-orders'), hourly)
  } catch (error) {
    reportError(error)
  }
}

/** The gateway's own state worth a glance: the fleet bridge, when it is on; a clock it cannot trust. */
const clockNotice = mountClockNotice(document.querySelector('header.topbar'), api)
async function refreshGateway() {
  try {
    const status = (await api('GET', '/api/v2/gateway')).gatewayStatus
    clockNotice.update(status)
    const pill = fleetPill(status?.fleet)
    $('fleet').hidden = pill.hidden
    $('fleet').textContent = pill.text
    $('fleet').dataset.state = pill.state
    const notice = backupNotice(status?.backup)
    $('backup-notice').hidden = notice.hidden
    $('backup-notice').textContent = notice.text
    $('backup-notice').title = notice.title
    // The radio: simulated, or the coordinator or why it is down; the Zigbee network map on the Network button.
    const radio = radioPill(status)
    Object.assign($('radio'), { hidden: radio.hidden, textContent: radio.text, title: radio.title })
    $('radio').dataset.state = radio.state
    $('network-toggle').hidden = status?.radioKind !== 'zigbee'
  } catch (error) {
    if (error instanceof ApiError && error.unauthorized) reportError(error)
  }
}

/**
 * Orders cleared lately, from the history (the feed adds the ones cleared from now on). The
 * history is newest-started first, so the last 100 started are read and those cleared in the
 * window kept: an order started more than 100 orders ago and cleared since is not listed.
 */
async function refreshRecent() {
  try {
    const { items } = await api('GET', '/api/v2/orders?limit=100')
    for (const item of items ?? []) recent.addSummary(item)
    renderRecent()
  } catch (error) {
    if (error instanceof ApiError && error.unauthorized) reportError(error)
  }
}

function renderRecent() {
  const entries = recent.list()
  const active = new Set(board.list().map((order) => String(order.name)))
  const list = $('recent-list')
  list.replaceChildren(
    ...entries.map((entry) => {
      const item = document.createElement('li')
      item.dataset.uuid = entry.uuid
      item.dataset.order = entry.name
      const time = clockTime(entry.clearedAt, prefs)
      const parts = [
        ['recent-name', `#${entry.name}`],
        ['recent-where', whereText(entry)],
        ['recent-time', time],
        ['recent-by', t(entry.here ? 'byThisScreen' : 'byElsewhere')],
      ]
      for (const [className, text] of parts) {
        const span = document.createElement('span')
        span.className = className
        span.textContent = text
        item.append(span)
      }
      const recall = document.createElement('button')
      recall.type = 'button'
      recall.className = 'secondary'
      recall.dataset.recall = entry.uuid
      recall.textContent = t('recall')
      recall.setAttribute('aria-label', t('recallOrder', { order: entry.name, where: whereText(entry) }))
      // The number is on the board again: recalling would change that order instead.
      recall.disabled = !live || active.has(entry.name)
      item.append(recall)
      return item
    }),
  )
  $('recent-empty').hidden = entries.length > 0
}

async function recall(uuid) {
  const entry = recent.list().find((candidate) => candidate.uuid === uuid)
  if (!entry || board.list().some((order) => String(order.name) === entry.name)) return
  try {
    // The gateway starts it again with its original start: as late as it was (docs/api.md, "Recall").
    const body = await api('POST', `/api/v2/orders/${encodeURIComponent(uuid)}/recall`)
    recent.remove(uuid)
    if (body?.activeorder) board.apply(body.activeorder)
    redraw()
  } catch (error) {
    reportError(error)
  }
}

/**
 * Undo: the newest clear still in its undo window, else recall the newest one sent from
 * here. Answers why nothing could be undone (null when something was).
 */
function undoLastClear() {
  while (clearedHere.length) {
    const uuid = clearedHere.pop()
    if (pending.undo(uuid)) {
      const card = cardOf(uuid)
      if (card) selectCard(card)
      return null
    }
  }
  const last = recent.lastHere()
  if (!last) return t('nothingToUndo')
  if (!live) return t('offlineNothingRecalled')
  if (board.list().some((order) => String(order.name) === last.name)) return t('orderBackOnBoard', { order: last.name })
  void recall(last.uuid)
  return null
}

function refreshFigures() {
  refreshStatistics()
  // An admin may have changed this screen's settings from another board.
  void screenSettings.refresh()
  refreshGateway()
  if (view === 'charts') refreshCharts()
  // Another screen may have arranged the floor (its areas too, which an area filter needs).
  floor.refresh()
}

let statsSoon = null
let simSoon = null
function afterChange(frame) {
  // Clearing changes today's figures; the simulator shows where trackers are.
  if (frame.type === 'ORDER_CLEARED') {
    pending.forget(frame.uuid)
    recent.add({
      uuid: frame.uuid,
      name: frame.name,
      orderType: frame.orderType,
      table: frame.locationName,
      clearedAt: Date.now(),
      here: sentHere.has(frame.uuid),
    })
    renderRecent()
    clearTimeout(statsSoon)
    statsSoon = setTimeout(refreshStatistics, 300)
  }
  if (!$('simulator').hidden) {
    clearTimeout(simSoon)
    simSoon = setTimeout(simulator.refresh, 200)
  }
}

/** Why `action` cannot be done on `order` now; null when it can. */
function refusal(order, action) {
  const subject = cardSubject(order)
  const Subject = cardSubject(order, { start: true })
  if (action === 'undo') return pending.has(order.uuid) ? null : t('nothingToUndoOn', { subject })
  if (pending.has(order.uuid)) return t('beingCleared', { subject: Subject })
  // Undo sends nothing, so it works offline too; everything else needs the gateway.
  if (!live) return t('offlineNothingSent')
  if ($('cards').querySelector(`.card[data-uuid="${CSS.escape(order.uuid)}"][data-busy="true"]`)) return t('stillSending', { subject })
  if (action === 'page' && order.paged) return t('alreadyPaging', { subject: Subject })
  if (action === 'cancel' && !order.paged) return t('notPaging', { subject: Subject })
  return null
}

/** The card's main action (Enter on a selected card); answers why not, or null. */
function primaryAction(card) {
  const order = board.list().find((o) => o.uuid === card.dataset.uuid)
  if (!order) return t('orderGone')
  return act(card, pending.has(order.uuid) ? 'undo' : actionsFor(order).primary)
}

/** Does `action` on the card's order; answers why it could not (null when it did). */
function act(card, action) {
  const order = board.list().find((o) => o.uuid === card.dataset.uuid)
  if (!order) return t('orderGone')
  const refused = refusal(order, action)
  if (refused) return refused
  if (action === 'undo') {
    pending.undo(order.uuid)
    return null
  }
  if (action === 'clear') {
    // The selection goes on to the next card still waiting (else the one before).
    const wasSelected = selectedUuid === order.uuid
    const next = afterBump(
      cardElements().map((element) => element.dataset.uuid),
      order.uuid,
      (uuid) => pending.has(uuid),
    )
    clearedHere.push(order.uuid)
    pending.start(order)
    if (wasSelected && cardOf(next)) selectCard(cardOf(next))
    return null
  }
  void send(card, order, action)
  return null
}

async function send(card, order, action) {
  card.dataset.busy = 'true'
  redraw()
  try {
    const body = action === 'page' ? await api('POST', `${orderPath(order)}/page`, { tracking: true }) : await api('DELETE', `${orderPath(order)}/page`)
    // Show the answer at once; the feed confirms it (frames with a newer seq win).
    if (body?.activeorder) board.apply(body.activeorder)
    else if (action === 'cancel') board.patch(order.uuid, { paged: false })
  } catch (error) {
    if (action === 'page') sound.beep('failed')
    reportError(error)
  } finally {
    delete card.dataset.busy
    redraw()
  }
}

function showBoard() {
  pairing?.stop()
  $('login').hidden = true
  $('app').hidden = false
  document.querySelector('.tabs').hidden = false
  document.querySelector('.tools').hidden = false
  feed?.close()
  feed = connectFeed({
    token: tokenStore.get(),
    onSnapshot: (items) => {
      board.replace(items)
      for (const uuid of [...lastLevels.keys()]) if (!items.some((item) => item.uuid === uuid)) lastLevels.delete(uuid)
      redraw()
    },
    onChange: (frame) => {
      if (board.apply(frame)) redraw()
      afterChange(frame)
    },
    onSettings: (screen) => screenSettings.take(screen),
    onState: setConnection,
    onRejected: () => signOut(t('tokenRejected')),
  })
  refreshFigures()
  refreshRecent()
  clearInterval(statsTimer)
  statsTimer = setInterval(refreshFigures, 30_000)
  simulator.refresh()
  floor.refresh()
  showSound()
  void showIdentity()
}

/** Who this screen is signed in as, and what its token may do (its scope): only admin approves screens. */
async function showIdentity() {
  try {
    const { token } = await api('GET', '/api/v2/accesstoken')
    $('screen-identity').textContent = t('signedInAs', {
      name: token.name,
      scope: token.scope,
      words: scopeWords[token.scope] ? t(scopeWords[token.scope]) : token.scope,
    })
    document.body.dataset.scope = token.scope
    $('approve-form').hidden = token.scope !== 'admin'
    if (token.scope === 'admin') void screenSettings.listScreens()
    else $('settings-for-row').hidden = true
  } catch {
    // Unknown for now (offline, or the route opened without a token): the form stays; the gateway decides.
  }
}

/** What each scope may do, in words (message keys). */
const scopeWords = { read: 'scopeRead', screen: 'scopeScreen', pos: 'scopePos', admin: 'scopeAdmin' }

function signOut(message = '', { revoke = false } = {}) {
  // Sent with the token before it is forgotten here; keepalive lets it finish as the page changes.
  if (revoke && tokenStore.get()) api('DELETE', '/api/v2/accesstoken', undefined, { keepalive: true }).catch(() => {})
  feed?.close()
  feed = null
  clearInterval(statsTimer)
  clearTimeout(offlineSoon)
  tokenStore.clear()
  $('offline').hidden = true
  document.body.classList.remove('offline')
  $('app').hidden = true
  document.querySelector('.tabs').hidden = true
  document.querySelector('.tools').hidden = true
  $('overflow').hidden = true
  $('login').hidden = false
  $('login-error').textContent = message
  showSound()
  $('token-from-button').focus()
}

async function useToken(token) {
  tokenStore.set(token)
  try {
    await api('GET', '/api/v2/accesstoken')
  } catch (error) {
    if (error instanceof ApiError && (error.unauthorized || error.status === 400)) {
      return signOut(t('tokenNotAccepted'))
    }
  }
  showBoard()
}

function setView(next) {
  view = next
  for (const tab of document.querySelectorAll('.tab')) tab.setAttribute('aria-pressed', String(tab.dataset.view === next))
  for (const name of ['cards', 'floor', 'charts']) $(`${name}-view`).hidden = next !== name
  if (next === 'floor') floor.refresh()
  if (next === 'charts') refreshCharts()
  redraw()
}

function setSimulatorOpen(open) {
  $('simulator').hidden = !open
  $('sim-toggle').setAttribute('aria-expanded', String(open))
  document.body.dataset.simulator = String(open)
  if (open) simulator.refresh()
  fitCards()
}

/** Closes every open "⋯" menu; true when one was open (its button takes the focus back). */
function closeMenus() {
  let closed = false
  for (const menu of document.querySelectorAll('.card .menu:not([hidden])')) {
    menu.hidden = true
    const more = menu.parentElement.querySelector('.more')
    more.setAttribute('aria-expanded', 'false')
    if (menu.contains(document.activeElement)) more.focus()
    closed = true
  }
  return closed
}

/** Applies this screen's filter, theme, hour form and language. */
let translatedTo = null
function applyPrefs(next) {
  const changed = JSON.stringify(next) !== JSON.stringify(prefs)
  prefs = next
  document.documentElement.dataset.theme = prefs.theme
  document.documentElement.lang = prefs.language
  document.body.dataset.filter = prefs.filter
  if (translatedTo !== prefs.language) {
    // The page's fixed text (web/index.html); what the scripts write follows below.
    setLanguage(prefs.language)
    translatePage()
    translatedTo = prefs.language
  }
  if (changed) {
    // The cards' and the buttons' words are drawn again in the new language.
    showSound()
    void showIdentity()
    // The gateway's pills (radio, fleet, backup, clock) too, not at their next refresh.
    void refreshGateway()
    redraw()
  }
}

function setupControls() {
  screenSettings = setupScreenSettings({
    onDensity: (value) => {
      density = value
      fitCards()
    },
    onPrefs: (next) => applyPrefs(next),
    sound,
    onError: reportError,
    // Signing out on purpose gives the token up at the gateway too: it stops working at once.
    onSignOut: () => signOut('', { revoke: true }),
  })
  applyPrefs(prefs)
  for (const tab of document.querySelectorAll('.tab')) tab.addEventListener('click', () => setView(tab.dataset.view))
  for (const button of document.querySelectorAll('.range')) {
    button.addEventListener('click', () => {
      range = button.dataset.range
      for (const other of document.querySelectorAll('.range')) other.setAttribute('aria-pressed', String(other === button))
      refreshCharts()
    })
  }
  $('sim-toggle').addEventListener('click', () => setSimulatorOpen($('simulator').hidden))
  $('sound-toggle').addEventListener('click', () => {
    sound.toggle()
    screenSettings.soundChanged()
  })
  $('sound-unblock').addEventListener('click', () => sound.unlock())
  // Touch search: the card whose headline is that number (as n, digits, Enter), or why not.
  $('find-form').addEventListener('submit', (event) => {
    event.preventDefault()
    const number = $('find-number').value.trim()
    $('find-number').value = ''
    if (!/^\d{1,4}$/.test(number)) return
    if (view !== 'cards') setView('cards')
    const card = findCard(number)
    if (card) selectCard(card)
    else say(t('noTableOrOrder', { number }))
  })
  showSound()
  // Browsers start audio only after a tap or a key on the page (a bump bar's key counts).
  document.addEventListener('pointerdown', () => sound.unlock())
  document.addEventListener('keydown', () => sound.unlock())
  $('cards').addEventListener('click', (event) => {
    const more = event.target.closest('button.more')
    if (more) {
      const menu = more.parentElement.querySelector('.menu')
      menu.hidden = !menu.hidden
      more.setAttribute('aria-expanded', String(!menu.hidden))
      if (!menu.hidden) menu.querySelector('button')?.focus()
      return
    }
    const button = event.target.closest('button[data-action]')
    if (!button) return
    const menu = button.closest('.actions')?.querySelector('.menu')
    if (menu && !menu.hidden) {
      menu.hidden = true
      menu.previousElementSibling.setAttribute('aria-expanded', 'false')
    }
    const refused = act(button.closest('.card'), button.dataset.action)
    if (refused) say(refused)
  })
  // A tap or Tab into a card selects it.
  $('cards').addEventListener('focusin', (event) => {
    const card = event.target.closest('.card')
    if (card && card.dataset.uuid !== selectedUuid) {
      selectedUuid = card.dataset.uuid
      markSelection()
    }
  })
  $('recent-list').addEventListener('click', (event) => {
    const button = event.target.closest('button[data-recall]')
    if (button) void recall(button.dataset.recall)
  })
  setupBumpBar({
    cards: cardElements,
    inView: cardsInView,
    columns: () => columns,
    selected: () => cardOf(selectedUuid),
    act,
    primary: primaryAction,
    undo: undoLastClear,
    select: selectCard,
    find: findCard,
    closeMenus,
    say,
  })
  window.addEventListener('resize', () => fitCards())
  window.addEventListener('scroll', () => updateOverflow(), { passive: true })
  // Closing the page sends the clears still in their undo window.
  window.addEventListener('pagehide', () => pending.flush())
}

function setupLogin() {
  $('token-form').addEventListener('submit', (event) => {
    event.preventDefault()
    useToken($('token-input').value.trim().toLowerCase())
  })
  $('token-from-button').addEventListener('click', async () => {
    try {
      const body = await fetch(`/api/v2/accesstoken/generate?name=${deviceTokenName()}`).then((r) => r.json())
      if (body.token?.token) return useToken(body.token.token)
      $('login-error').textContent = body.message ?? t('buttonWindowClosed')
    } catch (error) {
      $('login-error').textContent = String(error.message ?? error)
    }
  })
  $('pairing-start').addEventListener('click', () => {
    const previous = pairing?.id ?? null
    pairing?.stop()
    $('pairing').hidden = false
    pairing = waitForApproval({
      name: deviceTokenName(),
      replaces: previous,
      onToken: (token) => useToken(token),
      show: (code, status) => {
        $('pairing-code').textContent = code ?? ''
        $('pairing-status').textContent = status
      },
    })
  })
}

function start() {
  simulator = setupSimulator({
    onError: reportError,
    onAvailable: (available) => {
      $('sim-toggle').hidden = !available
      if (!available) setSimulatorOpen(false)
    },
  })
  floor = setupFloor({
    api,
    onError: reportError,
    orders: activeOrders,
    target: () => targetSeconds,
    onPlan: (plan) => {
      const changed = JSON.stringify(plan) !== JSON.stringify(floorPlan)
      floorPlan = plan
      screenSettings.setAreas(areasOf(plan))
      if (changed) redraw()
    },
  })
  setupNetworkMap({
    button: $('network-toggle'),
    dialog: $('network-map'),
    picture: $('network-map-picture'),
    notes: $('network-map-notes'),
    api,
    onError: reportError,
  })
  setupLogin()
  setupControls()
  // A screen that had sound on tries to start it at once: a kiosk started with the autoplay
  // flag plays with no tap; elsewhere the banner asks for one.
  sound.unlock()
  void showConnectionSecurity($('connection-security'))
  setInterval(() => {
    const now = Date.now()
    tickCards(visibleOrders(), now, targetSeconds, cardContext(), lastLevels)
    const levels = new Map(activeOrders().map((order) => [order.uuid, levelOf((now - order.startedAt) / 1000, targetSeconds)]))
    const late = activeOrders().filter((order) => isLate(levels.get(order.uuid)))
    // Offline too: the late orders the board last saw are still waiting. Very late is its
    // own stage: reminded at once when reached, with its own sound.
    const stage = (order) => (levels.get(order.uuid) === 'critical' ? { ...order, uuid: `${order.uuid} critical` } : order)
    const due = reminders.due(late.map(stage), now, screenSettings.reminderSeconds())
    if (due.length && sound.beep(due.some((key) => key.endsWith(' critical')) ? 'very-late' : 'late')) reminders.played(due, now)
    if ($('app').hidden) offlineAlarm.connection(true, now)
    else if (offlineAlarm.due(now, screenSettings.offlineAlarmSeconds()) && sound.beep('offline')) offlineAlarm.played(now)
    renderStatistics(lastStats, activeOrders().length, late.length)
    if (view === 'floor') floor.render(now)
    updateOverflow()
  }, 1000)
  if (tokenStore.get()) showBoard()
  else signOut()
}

start()
