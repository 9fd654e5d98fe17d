// The floor view: the manager's grid of tables (GET/POST /api/v2/floor, the same on every
// screen), each table coloured by its most urgent order. "Arrange tables" edits a draft:
// tap a table, then the cell it goes to; save sends the whole plan to the gateway.
import { addTable, areasOf, moveTable, ordersByTable, removeTable, resizePlan, setArea, tableAt } from './floor-plan.js'
import { formatDuration, levelOf } from './orders.js'
import { t } from './i18n.js'

const $ = (id) => document.getElementById(id)
const rank = { green: 0, amber: 1, red: 2, critical: 3 }

function chip(order, now, target) {
  const item = document.createElement('li')
  const elapsed = (now - order.startedAt) / 1000
  item.className = 'chip'
  item.dataset.level = levelOf(elapsed, target)
  item.dataset.order = order.name
  item.textContent = `#${order.name} ${formatDuration(elapsed)}${order.paged ? ` · ${t('floorPaging')}` : ''}`
  return item
}

function tile(table, orders, now, target, area) {
  const element = document.createElement('div')
  element.className = 'table-tile'
  element.dataset.table = String(table)
  const heading = document.createElement('span')
  heading.className = 'table-number'
  heading.textContent = String(table)
  if (area) {
    element.dataset.area = area
    const name = document.createElement('span')
    name.className = 'table-area'
    name.textContent = area
    heading.after(name)
  }
  const chips = document.createElement('ul')
  chips.append(...orders.map((order) => chip(order, now, target)))
  const worst = orders.reduce((level, order) => {
    const next = levelOf((now - order.startedAt) / 1000, target)
    return rank[next] > rank[level] ? next : level
  }, 'green')
  element.dataset.level = orders.length ? worst : 'free'
  element.prepend(heading)
  element.append(chips)
  return element
}

/** `onPlan(plan)`: the plan as the gateway keeps it, each time it is read or saved (the area filter needs it). */
export function setupFloor({ api, onError, orders, target, onPlan = () => {} }) {
  let plan = null
  let draft = null
  let selected = null

  async function refresh() {
    try {
      plan = (await api('GET', '/api/v2/floor')).floor
      onPlan(plan)
      render()
    } catch (error) {
      onError(error)
    }
  }

  function cellClicked(x, y) {
    const here = tableAt(draft, x, y)
    if (selected !== null && here?.table === selected) draft = removeTable(draft, selected)
    else if (selected !== null) draft = moveTable(draft, selected, x, y)
    else if (here) return select(here.table)
    selected = null
    showAreaField()
    render()
  }

  function select(table) {
    selected = table
    showAreaField()
    render()
  }

  /** The area field names the selected table and holds its area; with none selected it is off. */
  function showAreaField() {
    const chosen = draft && selected !== null ? draft.tables.find((t) => t.table === selected) : undefined
    $('floor-area').disabled = !chosen
    $('floor-area-set').disabled = !chosen
    $('floor-area-label').textContent = chosen ? t('areaOfTable', { table: String(chosen.table) }) : t('areaPickATable')
    $('floor-area').value = chosen?.area ?? ''
    $('floor-areas').replaceChildren(...areasOf(draft ?? plan).map((name) => new Option(name)))
  }

  function render(now = Date.now()) {
    const shown = draft ?? plan
    if (!shown) return
    const groups = ordersByTable(orders())
    if (draft) {
      $('floor-columns').value = String(draft.columns)
      $('floor-rows').value = String(draft.rows)
    }
    const grid = $('floor')
    grid.style.gridTemplateColumns = `repeat(${shown.columns}, minmax(0, 1fr))`
    grid.dataset.editing = String(draft !== null)
    const cells = []
    for (let y = 0; y < shown.rows; y++) {
      for (let x = 0; x < shown.columns; x++) {
        const placed = tableAt(shown, x, y)
        const cell = placed ? tile(placed.table, groups.get(String(placed.table)) ?? [], now, target(), placed.area) : document.createElement('div')
        if (!placed) cell.className = 'floor-cell'
        cell.dataset.x = String(x)
        cell.dataset.y = String(y)
        if (draft) {
          cell.tabIndex = 0
          cell.setAttribute('role', 'button')
          if (placed && placed.table === selected) cell.dataset.selected = 'true'
          // A table is named by what it shows; an empty cell by where it is.
          if (!placed) cell.setAttribute('aria-label', t('floorEmptyCell', { column: x + 1, row: y + 1 }))
          else cell.setAttribute('aria-pressed', String(placed.table === selected))
          cell.addEventListener('click', () => cellClicked(x, y))
          cell.addEventListener('keydown', (event) => {
            // Escape lets the selected table go, where it is (Enter on it again would take it off).
            if (event.key === 'Escape' && selected !== null) {
              event.preventDefault()
              selected = null
              showAreaField()
              return render()
            }
            if (event.key !== 'Enter' && event.key !== ' ') return
            event.preventDefault()
            cellClicked(x, y)
          })
        }
        cells.push(cell)
      }
    }
    // The grid is drawn anew (every second for the timers): the cell that had the focus
    // (a table being arranged) gets it back, so a keyboard or switch user is not thrown out.
    const focused = grid.contains(document.activeElement) ? document.activeElement.closest('[data-x]') : null
    grid.replaceChildren(...cells)
    if (focused) grid.querySelector(`[data-x="${focused.dataset.x}"][data-y="${focused.dataset.y}"]`)?.focus({ preventScroll: true })
    const onPlan = new Set(shown.tables.map((t) => String(t.table)))
    const unplaced = [...groups.entries()].filter(([key]) => !onPlan.has(key))
    $('floor-unplaced').replaceChildren(
      ...unplaced.map(([key, list]) => {
        const group = tile(key || '–', list, now, target())
        group.querySelector('.table-number').textContent = key ? t('floorNotOnPlan', { table: String(key) }) : t('floorNoTable')
        group.classList.add('wide')
        return group
      }),
    )
  }

  function arrange(on) {
    draft = on ? structuredClone(plan) : null
    selected = null
    $('floor-arrange').setAttribute('aria-pressed', String(on))
    $('floor-editor').hidden = !on
    showAreaField()
    render()
  }

  $('floor-arrange').addEventListener('click', () => plan && arrange(draft === null))
  $('floor-cancel').addEventListener('click', () => arrange(false))
  // Buttons, not typed numbers: a field's change on blur would redraw the grid under the tap
  // that caused the blur, and that tap would be lost.
  for (const button of document.querySelectorAll('[data-resize]')) {
    button.addEventListener('click', () => {
      const step = Number(button.dataset.step)
      const columns = draft.columns + (button.dataset.resize === 'columns' ? step : 0)
      const rows = draft.rows + (button.dataset.resize === 'rows' ? step : 0)
      if (columns <= 30 && rows <= 30) draft = resizePlan(draft, columns, rows)
      render()
    })
  }
  $('floor-add-form').addEventListener('submit', (event) => {
    event.preventDefault()
    draft = addTable(draft, Number($('floor-add').value))
    $('floor-add').value = ''
    render()
  })
  // The selected table keeps its selection, and the focus stays in the field: the next
  // table is a Shift+Tab away.
  $('floor-area-form').addEventListener('submit', (event) => {
    event.preventDefault()
    if (!draft || selected === null) return
    draft = setArea(draft, selected, $('floor-area').value)
    showAreaField()
    render()
  })
  $('floor-save').addEventListener('click', async () => {
    try {
      plan = (await api('POST', '/api/v2/floor', draft)).floor
      onPlan(plan)
      arrange(false)
    } catch (error) {
      onError(error)
    }
  })

  return { refresh, render }
}
