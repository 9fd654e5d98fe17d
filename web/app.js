// The order board: asks for an access token once, then shows the live active orders from
// the WebSocket feed, with paging and clearing through the v2 API. While the feed is down a
// banner says so and the board is greyed with its buttons off: nothing on it may look live.
import { ApiError, api, orderPath, tokenStore } from './board/api.js'
import { drawOrders, drawTimes } from './board/charts.js'
import { connectFeed } from './board/feed.js'
import { setupFloor } from './board/floor.js'
import { fleetPill } from './board/fleet.js'
import { OrderBoard, lateNow } from './board/orders.js'
import { renderCards, renderStatistics, showToast, tickCards } from './board/render.js'
import { setupSimulator } from './board/simulator.js'
import { createSound } from './board/sound.js'
import { PendingClears } from './board/undo.js'
import { deviceTokenName } from './board/token-name.js'

const $ = (id) => document.getElementById(id)
const board = new OrderBoard()
const sound = createSound()
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

const pending = new PendingClears({
  send: async (order, options) => {
    await api('DELETE', orderPath(order), undefined, options)
    board.remove(order.uuid)
  },
  onChange: () => redraw(),
  // Not cleared after all: the card stays, with its buttons back.
  onFailed: (_order, error) => reportError(error),
})

/** The orders a runner should see: those being cleared stay, with their Undo. */
const visibleOrders = () => board.list()
const cardContext = () => ({ pending: (uuid) => (pending.has(uuid) ? pending.secondsLeft(uuid) : null), disabled: !live })
const activeOrders = () => board.list().filter((order) => !pending.has(order.uuid))

function redraw() {
  const now = Date.now()
  renderCards(visibleOrders(), now, targetSeconds, cardContext())
  renderStatistics(lastStats, activeOrders().length, lateNow(activeOrders(), now, targetSeconds))
  if (view === 'floor') floor.render(now)
}

function setConnection(state, seconds) {
  live = state === 'live'
  document.body.dataset.connection = state
  clearTimeout(offlineSoon)
  if (live) {
    $('offline').hidden = true
    document.body.classList.remove('offline')
  } else {
    $('offline-detail').textContent = state === 'reconnecting' && seconds >= 1 ? `Trying again in ${seconds} s.` : 'Trying again…'
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
  if (error instanceof ApiError && error.unauthorized) return signOut('The access token was rejected: enter another.')
  if (error instanceof ApiError) return showToast(`${error.message} (${error.returnCode ?? error.status})`)
  // fetch() failing means the gateway is out of reach: the banner says it better.
  showToast(error instanceof TypeError ? 'The gateway did not answer: try again when it is back.' : String(error.message ?? error))
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

/** The gateway's own state worth a glance: the fleet bridge, when it is on. */
async function refreshGateway() {
  try {
    const pill = fleetPill((await api('GET', '/api/v2/gateway')).gatewayStatus?.fleet)
    $('fleet').hidden = pill.hidden
    $('fleet').textContent = pill.text
    $('fleet').dataset.state = pill.state
  } catch (error) {
    if (error instanceof ApiError && error.unauthorized) reportError(error)
  }
}

function refreshFigures() {
  refreshStatistics()
  refreshGateway()
  if (view === 'charts') refreshCharts()
  // Another screen may have arranged the floor.
  if (view === 'floor') floor.refresh()
}

let statsSoon = null
let simSoon = null
function afterChange(frame) {
  // Clearing changes today's figures; the simulator shows where trackers are.
  if (frame.type === 'ORDER_CLEARED') {
    pending.forget(frame.uuid)
    clearTimeout(statsSoon)
    statsSoon = setTimeout(refreshStatistics, 300)
  }
  if (!$('simulator').hidden) {
    clearTimeout(simSoon)
    simSoon = setTimeout(simulator.refresh, 200)
  }
}

async function act(card, action) {
  const order = board.list().find((o) => o.uuid === card.dataset.uuid)
  if (!order) return
  if (action === 'undo') return pending.undo(order.uuid)
  if (action === 'clear') return pending.start(order)
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
    onState: setConnection,
    onRejected: () => signOut('The access token was rejected: enter another.'),
  })
  refreshFigures()
  clearInterval(statsTimer)
  statsTimer = setInterval(refreshFigures, 30_000)
  simulator.refresh()
  floor.refresh()
}

function signOut(message = '') {
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
  $('login').hidden = false
  $('login-error').textContent = message
  $('token-input').focus()
}

async function useToken(token) {
  tokenStore.set(token)
  try {
    await api('GET', '/api/v2/accesstoken')
  } catch (error) {
    if (error instanceof ApiError && (error.unauthorized || error.status === 400)) {
      return signOut('That access token was not accepted.')
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
}

function setupControls() {
  $('forget-token').addEventListener('click', () => signOut())
  for (const tab of document.querySelectorAll('.tab')) tab.addEventListener('click', () => setView(tab.dataset.view))
  for (const button of document.querySelectorAll('.range')) {
    button.addEventListener('click', () => {
      range = button.dataset.range
      for (const other of document.querySelectorAll('.range')) other.setAttribute('aria-pressed', String(other === button))
      refreshCharts()
    })
  }
  $('sim-toggle').addEventListener('click', () => setSimulatorOpen($('simulator').hidden))
  const showSound = () => {
    $('sound-toggle').textContent = sound.enabled ? 'Sound on' : 'Sound off'
    $('sound-toggle').setAttribute('aria-pressed', String(sound.enabled))
  }
  $('sound-toggle').addEventListener('click', () => {
    sound.toggle()
    showSound()
  })
  showSound()
  // Browsers start audio only after a tap on the page.
  document.addEventListener('pointerdown', () => sound.unlock())
  $('cards').addEventListener('click', (event) => {
    const more = event.target.closest('button.more')
    if (more) {
      const menu = more.parentElement.querySelector('.menu')
      menu.hidden = !menu.hidden
      more.setAttribute('aria-expanded', String(!menu.hidden))
      return
    }
    const button = event.target.closest('button[data-action]')
    if (!button) return
    const menu = button.closest('.actions')?.querySelector('.menu')
    if (menu && !menu.hidden) {
      menu.hidden = true
      menu.previousElementSibling.setAttribute('aria-expanded', 'false')
    }
    act(button.closest('.card'), button.dataset.action)
  })
  // Closing the page sends the clears still in their undo window.
  window.addEventListener('pagehide', () => pending.flush())
}

function start() {
  simulator = setupSimulator({
    onError: reportError,
    onAvailable: (available) => {
      $('sim-toggle').hidden = !available
      $('radio-kind').hidden = !available
      if (!available) setSimulatorOpen(false)
    },
  })
  floor = setupFloor({ api, onError: reportError, orders: activeOrders, target: () => targetSeconds })
  $('token-form').addEventListener('submit', (event) => {
    event.preventDefault()
    useToken($('token-input').value.trim().toLowerCase())
  })
  $('token-from-button').addEventListener('click', async () => {
    try {
      const body = await fetch(`/api/v2/accesstoken/generate?name=${deviceTokenName()}`).then((r) => r.json())
      if (body.token?.token) return useToken(body.token.token)
      $('login-error').textContent = body.message ?? 'The button window is closed: press the button first.'
    } catch (error) {
      $('login-error').textContent = String(error.message ?? error)
    }
  })
  setupControls()
  setInterval(() => {
    const now = Date.now()
    const turnedLate = tickCards(visibleOrders(), now, targetSeconds, cardContext(), lastLevels)
    if (turnedLate.length) sound.beep('late')
    renderStatistics(lastStats, activeOrders().length, lateNow(activeOrders(), now, targetSeconds))
    if (view === 'floor') floor.render(now)
  }, 1000)
  if (tokenStore.get()) showBoard()
  else signOut()
}

start()
