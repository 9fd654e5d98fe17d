// The manager's charts as plain SVG (no library): time to table by hour (median bar, 90th
// percentile tick, target line) and orders per hour, from GET /api/v2/statistics/hourly.
import { hourWindow, niceMax } from './chart-scale.js'
import { formatDuration } from './orders.js'
import { t } from './i18n.js'

const svgNs = 'http://www.w3.org/2000/svg'

function node(tag, attributes = {}, text) {
  const element = document.createElementNS(svgNs, tag)
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value))
  if (text !== undefined) element.textContent = text
  return element
}

const height = 260
const left = 56
const bottom = 28
const top = 16

/** Drawn at the container's own width, so the labels keep their size on a phone. */
function frame(container, hours, max, formatAxis) {
  const width = Math.max(320, Math.min(1200, Math.round(container.clientWidth || 720)))
  const svg = node('svg', { viewBox: `0 0 ${width} ${height}`, class: 'chart-svg', role: 'img' })
  const plotHeight = height - top - bottom
  const slot = (width - left - 8) / hours.length
  const y = (value) => top + plotHeight - (Math.min(value, max) / max) * plotHeight
  for (const share of [0, 0.5, 1]) {
    svg.append(node('line', { x1: left, x2: width - 8, y1: y(max * share), y2: y(max * share), class: 'grid' }))
    svg.append(node('text', { x: left - 6, y: y(max * share) + 4, class: 'axis', 'text-anchor': 'end' }, formatAxis(max * share)))
  }
  // Narrow slots (a phone, a long day) label every other hour.
  const every = slot < 32 ? 2 : 1
  hours.forEach((h, i) => {
    if (i % every === 0)
      svg.append(node('text', { x: left + slot * (i + 0.5), y: height - 8, class: 'axis', 'text-anchor': 'middle' }, t('chartHour', { hour: h.hour })))
  })
  if (!hours.some((h) => h.orders > 0)) {
    svg.append(node('text', { x: (left + width) / 2, y: top + (height - top - bottom) / 2, class: 'axis nothing', 'text-anchor': 'middle' }, t('chartNothing')))
  }
  return { svg, slot, y, width }
}

/** Median bars coloured against the target, a tick at the 90th percentile, the target dashed. */
export function drawTimes(container, hourly) {
  const hours = hourWindow(hourly.hours)
  const max = niceMax(Math.max(hourly.targetTime * 1.25, ...hours.map((h) => h.p90Seconds ?? 0)) / 60) * 60
  const { svg, slot, y, width } = frame(container, hours, max, (s) => formatDuration(s))
  hours.forEach((h, i) => {
    if (h.medianSeconds === null) return
    const x = left + slot * i + slot * 0.2
    const over = h.medianSeconds > hourly.targetTime
    const bar = node('rect', {
      x,
      y: y(h.medianSeconds),
      width: slot * 0.6,
      height: y(0) - y(h.medianSeconds),
      class: over ? 'bar over' : 'bar within',
      'data-hour': h.hour,
      'data-median': h.medianSeconds,
      'data-p90': h.p90Seconds,
    })
    bar.append(node('title', {}, `${h.hour}:00 – median ${formatDuration(h.medianSeconds)}, 90 % within ${formatDuration(h.p90Seconds)} (${h.orders} orders)`))
    svg.append(bar, node('line', { x1: x - 4, x2: x + slot * 0.6 + 4, y1: y(h.p90Seconds), y2: y(h.p90Seconds), class: 'p90' }))
  })
  svg.append(node('line', { x1: left, x2: width - 8, y1: y(hourly.targetTime), y2: y(hourly.targetTime), class: 'target' }))
  svg.append(
    node(
      'text',
      { x: width - 10, y: y(hourly.targetTime) - 5, class: 'axis target-label', 'text-anchor': 'end' },
      t('chartTargetTime', { time: formatDuration(hourly.targetTime) }),
    ),
  )
  svg.setAttribute('aria-label', t('chartTimesLabel'))
  container.replaceChildren(
    svg,
    legend([
      ['within', t('chartWithin')],
      ['over', t('chartOver')],
      ['p90', t('chartP90')],
      ['target', t('chartTarget')],
    ]),
  )
}

/** Orders per hour, the count written over each bar. */
export function drawOrders(container, hourly) {
  const hours = hourWindow(hourly.hours)
  const max = niceMax(Math.max(...hours.map((h) => h.orders)))
  const { svg, slot, y } = frame(container, hours, max, (n) => (Number.isInteger(n) ? String(n) : ''))
  hours.forEach((h, i) => {
    const x = left + slot * i + slot * 0.2
    svg.append(
      node('rect', { x, y: y(h.orders), width: slot * 0.6, height: y(0) - y(h.orders), class: 'bar count', 'data-hour': h.hour, 'data-orders': h.orders }),
    )
    if (h.orders) svg.append(node('text', { x: x + slot * 0.3, y: y(h.orders) - 4, class: 'axis', 'text-anchor': 'middle' }, String(h.orders)))
  })
  svg.setAttribute('aria-label', hourly.days > 1 ? t('chartOrdersSummed', { days: hourly.days }) : t('chartOrdersLabel'))
  container.replaceChildren(svg)
}

function legend(entries) {
  const list = document.createElement('ul')
  list.className = 'legend'
  for (const [kind, text] of entries) {
    const item = document.createElement('li')
    item.dataset.kind = kind
    item.textContent = text
    list.append(item)
  }
  return list
}
