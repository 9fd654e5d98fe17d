// The chain board: every site at a glance, one site's open orders, figures for the chain or a
// site. Reads HQ's JSON API with an HQ token (kept in this browser) and reads again what a
// WebSocket notice says has changed (sent by whichever HQ instance serves this page, for a
// change ingested by any of them).
const $ = (id) => document.getElementById(id)
const tokenKey = 'hq-token'
let token = localStorage.getItem(tokenKey) ?? ''
let openSite = null
let sites = []
let alerts = []
let socket = null
let reconnectDelay = 500

async function api(path) {
  const response = await fetch(path, { headers: { authorization: `Bearer ${token}` } })
  const body = await response.json()
  if (response.status === 401 || response.status === 400) throw Object.assign(new Error(body.message), { auth: true })
  if (!response.ok) throw new Error(body.message ?? `HTTP ${response.status}`)
  return body
}

/**
 * A CSV export of the API as a file download: the API wants the token in a header, which a
 * plain link cannot send, so the file is fetched here and handed to the browser (an object URL
 * on a temporary link). A failure shows on the button.
 */
async function downloadCsv(button, path, filename) {
  button.disabled = true
  try {
    const response = await fetch(path, { headers: { authorization: `Bearer ${token}` } })
    if (!response.ok) throw new Error((await response.json()).message ?? `HTTP ${response.status}`)
    const url = URL.createObjectURL(await response.blob())
    const link = el('a', { href: url, download: filename })
    document.body.append(link)
    link.click()
    link.remove()
    setTimeout(() => URL.revokeObjectURL(url), 60_000)
    button.removeAttribute('data-error')
  } catch (error) {
    button.setAttribute('data-error', error.message)
    button.title = `Not downloaded: ${error.message}`
  } finally {
    button.disabled = false
  }
}

/** The figures' query as the charts read them: period, and the site when one is chosen. */
function statisticsQuery() {
  const site = $('scope').value
  return `period=${$('period').value}${site ? `&site=${encodeURIComponent(site)}` : ''}`
}

const minutes = (seconds) => (seconds === null || seconds === undefined ? '–' : (seconds / 60).toFixed(1))
const ago = (iso) => {
  if (!iso) return '–'
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000))
  return s < 90 ? `${s} s ago` : s < 5400 ? `${Math.round(s / 60)} min ago` : `${Math.round(s / 3600)} h ago`
}
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag)
  for (const [key, value] of Object.entries(attrs)) {
    if (key === 'class') node.className = value
    else if (key.startsWith('data-')) node.setAttribute(key, value)
    else node[key] = value
  }
  node.append(...children)
  return node
}

/** What the card's corner says: the connection, or "radio down" for an online site whose radio is down. */
function siteState(site) {
  return site.connection === 'online' && site.radioUp === false ? 'radio down' : site.connection
}

function renderSites() {
  const alerted = new Set(alerts.map((a) => a.siteId))
  const cards = sites.map((site) => {
    const overTarget = site.today.averageToTableSeconds !== null && site.today.averageToTableSeconds > site.targetSeconds
    const dl = el(
      'dl',
      {},
      el('dt', {}, 'Active orders'),
      el('dd', { 'data-field': 'active' }, String(site.activeOrders)),
      el('dt', {}, 'Late now'),
      el('dd', { 'data-field': 'late', class: site.lateNow ? 'late' : '' }, String(site.lateNow)),
      el('dt', {}, 'To table today'),
      el('dd', { class: overTarget ? 'over' : '' }, `${minutes(site.today.averageToTableSeconds)} / ${minutes(site.targetSeconds)} min`),
      el('dt', {}, 'Orders today'),
      el('dd', {}, String(site.today.orders)),
      el('dt', {}, 'Last seen'),
      el('dd', {}, ago(site.lastSeen)),
      ...(site.backlog ? [el('dt', {}, 'Backlog'), el('dd', {}, String(site.backlog))] : []),
      el('dt', {}, 'Version'),
      el('dd', {}, site.version ?? '–'),
      // Where the site is in the latest rollout that includes it (docs/hq.md "Rollouts").
      ...(site.rollout ? [el('dt', {}, 'Rollout'), el('dd', { class: 'rollout', 'data-rollout': site.rollout.state }, rolloutText(site.rollout))] : []),
    )
    const card = el(
      'button',
      {
        type: 'button',
        class: 'card',
        'data-site': site.siteId,
        'data-connection': site.connection,
        'data-radio': site.radioUp === null ? 'unknown' : site.radioUp ? 'up' : 'down',
        'data-alert': String(alerted.has(site.siteId)),
      },
      el('h3', {}, el('span', {}, site.siteId), el('span', { class: 'state' }, siteState(site))),
      dl,
    )
    card.addEventListener('click', () => showSite(site.siteId))
    return card
  })
  $('sites').replaceChildren(...cards)
  const online = sites.filter((s) => s.connection === 'online').length
  const active = sites.reduce((n, s) => n + s.activeOrders, 0)
  const late = sites.reduce((n, s) => n + s.lateNow, 0)
  $('summary').textContent = `${sites.length} sites, ${online} online · ${active} active orders, ${late} late`
  const scope = $('scope')
  const chosen = scope.value
  scope.replaceChildren(el('option', { value: '' }, 'Chain'), ...sites.map((s) => el('option', { value: s.siteId }, s.siteId)))
  scope.value = chosen
  $('alerts').replaceChildren(
    ...alerts.map((a) => el('div', { class: 'alert', 'data-kind': a.kind }, `${a.siteId}: ${a.kind} — ${a.detail} (since ${ago(a.raisedAt)})`)),
  )
}

/** "#3 failed (reason)": a site's rollout state as the board says it. */
function rolloutText(rollout) {
  return `#${rollout.id} ${rollout.state}${rollout.reason ? ` (${rollout.reason})` : ''}`
}

async function showSite(siteId) {
  openSite = siteId
  $('site').hidden = false
  await refreshSite()
}

async function refreshSite() {
  if (!openSite) return
  const [{ site }, { orders }, { orders: cleared }, { alerts: siteAlerts }] = await Promise.all([
    api(`/api/hq/sites/${encodeURIComponent(openSite)}`),
    api(`/api/hq/sites/${encodeURIComponent(openSite)}/orders`),
    api(`/api/hq/sites/${encodeURIComponent(openSite)}/history?limit=20`),
    api(`/api/hq/sites/${encodeURIComponent(openSite)}/alerts?limit=20`),
  ])
  $('site-name').textContent = site.siteId
  const radio = site.radioUp === false ? ` · radio down (${ago(site.radioDownSince)})` : ''
  $('site-facts').textContent =
    `${site.connection}${site.reason ? ` (${site.reason})` : ''}${radio} · version ${site.version ?? '–'}${site.rollout ? ` · rollout ${rolloutText(site.rollout)}` : ''} · last seen ${ago(site.lastSeen)} · change #${site.lastSeq}`
  $('site-orders').replaceChildren(
    ...orders.map((o) =>
      el(
        'tr',
        { class: o.late ? 'late' : '', 'data-order': o.name },
        el('td', {}, o.name),
        el('td', {}, o.orderType),
        el('td', {}, o.state),
        el('td', {}, o.locationName ?? '–'),
        el('td', {}, `${Math.floor(o.elapsedSeconds / 60)}:${String(o.elapsedSeconds % 60).padStart(2, '0')}`),
      ),
    ),
  )
  // Its last cleared orders and its alerts, open and cleared (the API has more, and CSV: docs/hq.md).
  $('site-history').replaceChildren(
    ...cleared.map((o) =>
      el(
        'tr',
        { 'data-order': o.name },
        el('td', {}, o.name),
        el('td', {}, o.orderType),
        el('td', {}, o.locationName ?? '–'),
        el('td', {}, o.toTableSeconds === null ? '–' : `${minutes(o.toTableSeconds)} min`),
        el('td', {}, ago(o.orderCleared)),
      ),
    ),
  )
  $('site-alerts').replaceChildren(
    ...siteAlerts.map((a) =>
      el(
        'tr',
        { class: a.clearedAt ? '' : 'late', 'data-kind': a.kind },
        el('td', {}, a.kind),
        el('td', {}, a.detail),
        el('td', {}, ago(a.raisedAt)),
        el('td', {}, a.clearedAt ? ago(a.clearedAt) : 'open'),
      ),
    ),
  )
}

const svgNs = 'http://www.w3.org/2000/svg'
function svg(tag, attrs) {
  const node = document.createElementNS(svgNs, tag)
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value))
  return node
}

/** A bar chart of [label, value] with an optional target line. */
function barChart(target, data, { line, overLine } = {}) {
  const width = 600
  const height = 140
  const max = Math.max(1, line ?? 0, ...data.map(([, v]) => v ?? 0))
  const step = width / Math.max(1, data.length)
  const children = []
  data.forEach(([label, value], i) => {
    const h = ((value ?? 0) / max) * (height - 20)
    children.push(
      svg('rect', {
        class: `bar${overLine && line !== undefined && value > line ? ' over' : ''}`,
        x: i * step + 2,
        y: height - 14 - h,
        width: Math.max(1, step - 4),
        height: h,
      }),
    )
    const text = svg('text', { x: i * step + step / 2, y: height - 3, 'text-anchor': 'middle' })
    text.textContent = label
    children.push(text)
  })
  if (line !== undefined) {
    const y = height - 14 - (line / max) * (height - 20)
    children.push(svg('line', { class: 'target', x1: 0, x2: width, y1: y, y2: y }))
  }
  target.setAttribute('viewBox', `0 0 ${width} ${height}`)
  target.replaceChildren(...children)
}

async function refreshCharts() {
  const site = $('scope').value
  const { statistics: s } = await api(`/api/hq/statistics?${statisticsQuery()}`)
  const hours = Array.from({ length: 24 }, (_, hour) => s.hours.find((h) => h.hour === hour) ?? { hour, orders: 0, averageToTableSeconds: null })
  // The chain's today is the sum of each site's own today (sites in other zones may be on another date).
  const days = s.basis === 'sites-own-days' ? "Today, the sum of each site's own day" : `${s.from}${s.to !== s.from ? ` to ${s.to}` : ''}`
  $('totals').textContent =
    `${days}: ${s.orders} orders, time to table ${minutes(s.averageToTableSeconds)} min (target ${minutes(s.targetSeconds)}), ${s.late} late`
  barChart(
    $('chart-orders'),
    hours.map((h) => [String(h.hour), h.orders]),
  )
  barChart(
    $('chart-ttt'),
    hours.map((h) => [String(h.hour), h.averageToTableSeconds === null ? 0 : h.averageToTableSeconds / 60]),
    { line: s.targetSeconds / 60, overLine: true },
  )
  $('by-site-figure').hidden = !!site
  if (!site)
    barChart(
      $('chart-sites'),
      s.sites.slice(0, 40).map((x) => [x.siteId, (x.averageToTableSeconds ?? 0) / 60]),
      { line: s.targetSeconds / 60, overLine: true },
    )
}

async function refresh(changed = '*', withAlerts = true, alertsChanged = false) {
  try {
    const [list, alertList] = await Promise.all([api('/api/hq/sites'), withAlerts ? api('/api/hq/alerts') : Promise.resolve({ alerts })])
    sites = list.sites
    alerts = alertList.alerts
    renderSites()
    // An alert raised or cleared may be the open site's: its alert list is read again.
    if (openSite && (changed === '*' || changed.includes(openSite) || alertsChanged)) await refreshSite()
    await refreshCharts()
  } catch (error) {
    if (error.auth) return showLogin('That token was refused')
    $('summary').textContent = `Cannot read HQ: ${error.message}`
  }
}

function connectLive() {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws'
  socket = new WebSocket(`${scheme}://${location.host}/api/hq/live`, ['hq', `token.${token}`])
  socket.addEventListener('open', () => {
    reconnectDelay = 500
    $('live').dataset.state = 'live'
    $('live').textContent = 'live'
    void refresh()
  })
  socket.addEventListener('message', (event) => {
    const notice = JSON.parse(event.data)
    if (notice.type === 'changed') void refresh(notice.sites, notice.alerts || true, notice.alerts === true)
  })
  socket.addEventListener('close', () => {
    $('live').dataset.state = 'down'
    $('live').textContent = 'reconnecting'
    if (!token) return
    setTimeout(connectLive, reconnectDelay)
    reconnectDelay = Math.min(10_000, reconnectDelay * 2)
  })
}

function showLogin(message) {
  $('board').hidden = true
  $('login').hidden = false
  $('logout').hidden = true
  $('login-error').hidden = !message
  $('login-error').textContent = message ?? ''
  socket?.close()
}

async function start() {
  $('login').hidden = true
  $('board').hidden = false
  $('logout').hidden = false
  try {
    await api('/api/hq/sites')
  } catch (error) {
    if (error.auth) return showLogin('That token was refused')
  }
  connectLive()
}

$('login').addEventListener('submit', (event) => {
  event.preventDefault()
  token = $('token').value.trim()
  localStorage.setItem(tokenKey, token)
  void start()
})
$('logout').addEventListener('click', () => {
  token = ''
  localStorage.removeItem(tokenKey)
  showLogin()
})
$('site-close').addEventListener('click', () => {
  openSite = null
  $('site').hidden = true
})
$('statistics-csv').addEventListener('click', (event) => {
  void downloadCsv(
    event.currentTarget,
    `/api/hq/statistics?${statisticsQuery()}&format=csv`,
    `statistics-${$('scope').value || 'chain'}-${$('period').value}.csv`,
  )
})
for (const kind of ['history', 'alerts']) {
  $(`${kind}-csv`).addEventListener('click', (event) => {
    if (openSite) void downloadCsv(event.currentTarget, `/api/hq/sites/${encodeURIComponent(openSite)}/${kind}?format=csv`, `${kind}-${openSite}.csv`)
  })
}
$('period').addEventListener('change', () => void refreshCharts())
$('scope').addEventListener('change', () => void refreshCharts())
// "Last seen" and waiting times move on with the clock between notices.
setInterval(() => {
  if (token && !$('board').hidden) void refresh('*', false)
}, 30_000)

if (token) void start()
else showLogin()
