// The radio on the board, for an installer: a header pill (simulated; or the coordinator, or why the
// Zigbee radio is down: a replacement stick that cannot take the network over says so there), and
// the network map (GET /api/v2/radio/map) as an SVG picture: the coordinator in the middle,
// routers around it, end devices outside, each link coloured by its link quality, so a weak
// or missing repeater shows. Pure functions build the text; setupNetworkMap() wires a button
// and a <dialog>.
import { t } from './i18n.js'

/** Link quality (0-255) bands: what an installer acts on. */
export function linkBand(lqi) {
  if (lqi >= 150) return 'good'
  if (lqi >= 80) return 'fair'
  return 'poor'
}

const bandColours = { good: '#2e7d32', fair: '#ef8f00', poor: '#c62828' }

const escapeText = (text) =>
  String(text).replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;')

/**
 * The one radio pill, from the gateway's status: "radio: simulated" for the simulated
 * restaurant, the coordinator or why it is down for Zigbee, hidden until the status is known.
 * @returns {{ hidden: boolean, text: string, state: string, title: string }}
 */
export function radioPill(status) {
  if (status?.radioKind === 'simulated') return { hidden: false, text: t('radioSimulated'), state: 'disabled', title: t('radioSimulatedTitle') }
  if (status?.radioKind !== 'zigbee') return { hidden: true, text: '', state: 'disabled', title: '' }
  const coordinator = status.coordinator
  const about = coordinator
    ? t('radioAbout', {
        type: coordinator.type,
        firmware: coordinator.firmware ?? t('radioUnknown'),
        eui64: coordinator.eui64,
        takeover: coordinator.backup?.takeover ?? t('radioUnknown'),
      })
    : t('radioCoordinatorNotSeen')
  if (status.radioUp) return { hidden: false, text: t('radioUp'), state: 'live', title: about }
  const reason = status.radioProcess?.lastError
  const short = reason ? (reason.length > 60 ? `${reason.slice(0, 57)}…` : reason) : t('radioStarting')
  return { hidden: false, text: t('radioDown', { reason: short }), state: 'reconnecting', title: reason ? `${reason}\n${about}` : about }
}

/** Positions on a circle of radius r around (cx, cy), the first at the top. */
function ring(count, r, cx, cy, offset = 0) {
  return Array.from({ length: count }, (_, i) => {
    const angle = offset + (2 * Math.PI * i) / Math.max(count, 1) - Math.PI / 2
    return { x: cx + r * Math.cos(angle), y: cy + r * Math.sin(angle), angle }
  })
}

/** One line per pair of nodes; where both ends reported, the weaker direction counts. */
function pairLinks(links) {
  const pairs = new Map()
  for (const link of links) {
    if (link.from === link.to) continue
    const key = [link.from, link.to].sort().join(' ')
    const known = pairs.get(key)
    if (!known || link.linkQuality < known.linkQuality) pairs.set(key, link)
  }
  return [...pairs.values()]
}

function label(node) {
  const tail = node.address.split(':').slice(-2).join(':')
  if (node.type === 'Coordinator') return t('mapCoordinator')
  return `${node.model ?? node.role ?? node.type} …${tail}`
}

/**
 * The map as an SVG document (a string; every device-supplied text escaped).
 * @param {{ nodes: Array<{address: string, type: string, role: string|null, model: string|null}>, links: Array<{from: string, to: string, linkQuality: number}>, unanswered: Array<{address: string, error: string}> }} map
 */
export function networkMapSvg(map, { size = 640 } = {}) {
  const c = size / 2
  const coordinator = map.nodes.find((node) => node.type === 'Coordinator')
  const routers = map.nodes.filter((node) => node.type === 'Router')
  const others = map.nodes.filter((node) => node.type !== 'Coordinator' && node.type !== 'Router')
  const where = new Map()
  if (coordinator) where.set(coordinator.address, { x: c, y: c })
  for (const [i, point] of ring(routers.length, size * 0.22, c, c).entries()) where.set(routers[i].address, point)
  // End devices outside, each near the router that lists it; the coordinator's own children
  // and devices no router lists fill the circle evenly, then crowded ones are pushed apart.
  const even = ring(others.length, 1, 0, 0, Math.PI / Math.max(others.length, 1)).map((point) => point.angle)
  const wanted = others.map((node, i) => {
    const link = map.links.find((l) => l.to === node.address && where.get(l.from)?.angle !== undefined)
    return { node, angle: link ? where.get(link.from).angle : even[i] }
  })
  wanted.sort((a, b) => a.angle - b.angle)
  const gap = Math.min(0.45, (2 * Math.PI) / Math.max(others.length, 1))
  const outer = size * 0.38
  wanted.forEach((entry, i) => {
    if (i > 0) entry.angle = Math.max(entry.angle, wanted[i - 1].angle + gap)
    where.set(entry.node.address, { x: c + outer * Math.cos(entry.angle), y: c + outer * Math.sin(entry.angle), angle: entry.angle })
  })
  const unanswered = new Set(map.unanswered.map((entry) => entry.address))

  const lines = pairLinks(map.links)
    .filter((link) => where.has(link.from) && where.has(link.to))
    .map((link) => {
      const a = where.get(link.from)
      const b = where.get(link.to)
      const band = linkBand(link.linkQuality)
      const mx = (a.x + b.x) / 2
      const my = (a.y + b.y) / 2
      return (
        `<g class="link" data-band="${band}"><line x1="${a.x.toFixed(1)}" y1="${a.y.toFixed(1)}" x2="${b.x.toFixed(1)}" y2="${b.y.toFixed(1)}" stroke="${bandColours[band]}" stroke-width="${band === 'poor' ? 1.5 : 2.5}"${band === 'poor' ? ' stroke-dasharray="5 4"' : ''}/>` +
        `<text x="${mx.toFixed(1)}" y="${my.toFixed(1)}" font-size="11" text-anchor="middle" fill="${bandColours[band]}">${Number(link.linkQuality)}</text></g>`
      )
    })
  const circles = map.nodes
    .filter((node) => where.has(node.address))
    .map((node) => {
      const { x, y } = where.get(node.address)
      const radius = node.type === 'Coordinator' ? 16 : node.type === 'Router' ? 11 : 7
      const fill = node.type === 'Coordinator' ? '#1a237e' : node.type === 'Router' ? '#3949ab' : '#90a4ae'
      const silent = unanswered.has(node.address)
      const title = `${node.address} ${node.type}${node.role ? ` (${node.role})` : ''}${node.model ? ` ${node.model}` : ''}${silent ? t('mapSilent') : ''}`
      return (
        `<g class="node" data-type="${escapeText(node.type)}" data-address="${escapeText(node.address)}"${silent ? ' data-silent="true"' : ''}>` +
        `<title>${escapeText(title)}</title>` +
        `<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="${radius}" fill="${fill}"${silent ? ' stroke="#c62828" stroke-width="3" stroke-dasharray="3 2"' : ''}/>` +
        `<text x="${x.toFixed(1)}" y="${(y + radius + 13).toFixed(1)}" font-size="12" text-anchor="middle" fill="currentColor">${escapeText(label(node))}</text></g>`
      )
    })
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" role="img" aria-label="${escapeText(t('mapLabel', { devices: map.nodes.length, links: pairLinks(map.links).length }))}">` +
    lines.join('') +
    circles.join('') +
    '</svg>'
  )
}

/** The words under the picture: the legend, and the routers that did not answer. */
export function networkMapNotes(map) {
  const notes = [t('mapLegend')]
  for (const entry of map.unanswered) notes.push(t('mapUnanswered', { address: entry.address, error: entry.error }))
  if (map.links.length === 0) notes.push(t('mapNoLinks'))
  return notes
}

/**
 * Wires the Network button and dialog: opening it fetches the map (it asks every router, so
 * it takes a few seconds) and draws it.
 */
export function setupNetworkMap({ button, dialog, picture, notes, api, onError }) {
  async function load() {
    picture.textContent = t('mapAsking')
    notes.replaceChildren()
    try {
      const { map } = await api('GET', '/api/v2/radio/map')
      picture.innerHTML = networkMapSvg(map)
      for (const text of networkMapNotes(map)) {
        const item = document.createElement('li')
        item.textContent = text
        notes.append(item)
      }
    } catch (error) {
      picture.textContent = ''
      onError(error)
    }
  }
  button.addEventListener('click', () => {
    dialog.showModal()
    load()
  })
  dialog.querySelector('[data-close]')?.addEventListener('click', () => dialog.close())
  dialog.querySelector('[data-reload]')?.addEventListener('click', () => load())
  return { load }
}
