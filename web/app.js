// The order board: asks for an access token once, then shows the live active orders from
// the WebSocket feed, with paging and clearing through the v2 API.
import { ApiError, api, orderPath, tokenStore } from './board/api.js'
import { connectFeed } from './board/feed.js'
import { fleetPill } from './board/fleet.js'
import { OrderBoard } from './board/orders.js'
import { renderCards, renderFloor, renderStatistics, showToast, tickCards } from './board/render.js'
import { setupSimulator } from './board/simulator.js'
import { deviceTokenName } from './board/token-name.js'

const $ = (id) => document.getElementById(id)
const board = new OrderBoard()
const defaultTargetSeconds = 300
let targetSeconds = defaultTargetSeconds
let view = 'cards'
let feed = null
let statsTimer = null
let simulator = null

function redraw() {
  const now = Date.now()
  const orders = board.list()
  renderCards(orders, now, targetSeconds)
  if (view === 'floor') renderFloor(orders, now, targetSeconds)
}

function setConnection(state, seconds) {
  const pill = $('connection')
  pill.dataset.state = state
  pill.textContent = state === 'reconnecting' ? `reconnecting in ${seconds} s` : state
}

function reportError(error) {
  if (error instanceof ApiError && error.unauthorized) return signOut('The access token was rejected: enter another.')
  showToast(error instanceof ApiError ? `${error.message} (${error.returnCode ?? error.status})` : String(error.message ?? error))
}

async function refreshStatistics() {
  try {
    const body = await api('GET', '/api/v2/statistics')
    const stats = body.statistics ?? body
    if (Number.isFinite(stats.targetTime) && stats.targetTime > 0) targetSeconds = stats.targetTime
    renderStatistics(stats)
    redraw()
  } catch (error) {
    if (error instanceof ApiError && error.unauthorized) reportError(error)
  }
}

/** The gateway's own state worth a glance: the fleet bridge, when it is on. */
async function refreshGateway() {
  try {
    const body = await api('GET', '/api/v2/gateway')
    const pill = fleetPill(body.gatewayStatus?.fleet)
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
}

let statsSoon = null
let simSoon = null
function afterChange(frame) {
  // Clearing changes today's figures; the simulator shows where trackers are.
  if (frame.type === 'ORDER_CLEARED') {
    clearTimeout(statsSoon)
    statsSoon = setTimeout(refreshStatistics, 300)
  }
  if (simulator && !$('simulator').hidden) {
    clearTimeout(simSoon)
    simSoon = setTimeout(simulator.refresh, 200)
  }
}

async function act(card, action) {
  const order = board.list().find((o) => o.uuid === card.dataset.uuid)
  if (!order) return
  card.dataset.busy = 'true'
  for (const button of card.querySelectorAll('button')) button.disabled = true
  try {
    let body
    if (action === 'page') body = await api('POST', `${orderPath(order)}/page`, { tracking: true })
    else if (action === 'cancel') body = await api('DELETE', `${orderPath(order)}/page`)
    else body = await api('DELETE', orderPath(order))
    // Show the answer at once; the feed confirms it (frames with a newer seq win).
    if (action === 'clear') board.remove(order.uuid)
    else if (body?.activeorder) board.apply(body.activeorder)
    else if (action === 'cancel') board.patch(order.uuid, { paged: false })
  } catch (error) {
    reportError(error)
  } finally {
    delete card.dataset.busy
    redraw()
  }
}

function showBoard() {
  $('login').hidden = true
  $('app').hidden = false
  $('forget-token').hidden = false
  feed?.close()
  feed = connectFeed({
    token: tokenStore.get(),
    onSnapshot: (items) => {
      board.replace(items)
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
}

function signOut(message = '') {
  feed?.close()
  feed = null
  clearInterval(statsTimer)
  tokenStore.clear()
  setConnection('offline')
  $('app').hidden = true
  $('forget-token').hidden = true
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
  $('cards-view').hidden = next !== 'cards'
  $('floor-view').hidden = next !== 'floor'
  redraw()
}

function start() {
  simulator = setupSimulator({ onError: reportError })
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
  $('forget-token').addEventListener('click', () => signOut())
  for (const tab of document.querySelectorAll('.tab')) tab.addEventListener('click', () => setView(tab.dataset.view))
  $('cards').addEventListener('click', (event) => {
    const button = event.target.closest('button[data-action]')
    if (button) act(button.closest('.card'), button.dataset.action)
  })
  setInterval(() => {
    const orders = board.list()
    tickCards(orders, Date.now(), targetSeconds)
    if (view === 'floor') renderFloor(orders, Date.now(), targetSeconds)
  }, 1000)
  if (tokenStore.get()) showBoard()
  else signOut()
}

start()
