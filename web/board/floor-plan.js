// Arranging the floor plan: pure functions over {columns, rows, tables: [{table, x, y, area?}]},
// so the board's editor and its tests share them. Nothing here talks to the gateway.

export const tableAt = (plan, x, y) => plan.tables.find((t) => t.x === x && t.y === y)

/** Moves `table` to cell (x, y); a table already there swaps places with it. */
export function moveTable(plan, table, x, y) {
  const moving = plan.tables.find((t) => t.table === table)
  if (!moving) return plan
  const other = tableAt(plan, x, y)
  return {
    ...plan,
    tables: plan.tables.map((t) => {
      if (t.table === table) return { ...t, x, y }
      if (other && t.table === other.table) return { ...t, x: moving.x, y: moving.y }
      return t
    }),
  }
}

export function removeTable(plan, table) {
  return { ...plan, tables: plan.tables.filter((t) => t.table !== table) }
}

/** Puts `table` in the first free cell (row by row), adding a row when the grid is full. */
export function addTable(plan, table) {
  if (!Number.isInteger(table) || table < 1 || plan.tables.some((t) => t.table === table)) return plan
  for (let y = 0; ; y++) {
    for (let x = 0; x < plan.columns; x++) {
      if (!tableAt(plan, x, y)) {
        const rows = Math.max(plan.rows, y + 1)
        return { ...plan, rows, tables: [...plan.tables, { table, x, y }] }
      }
    }
  }
}

/** A new grid size; tables that would fall outside move to the first free cells inside. */
export function resizePlan(plan, columns, rows) {
  if (!(columns >= 1 && rows >= 1) || columns * rows < plan.tables.length) return plan
  const inside = plan.tables.filter((t) => t.x < columns && t.y < rows)
  let next = { columns, rows, tables: inside }
  for (const t of plan.tables.filter((t) => t.x >= columns || t.y >= rows)) next = addTable(next, t.table)
  return next
}

/** Puts `table` in the area `name` (spaces around it dropped); an empty name takes it out of any area. */
export function setArea(plan, table, name) {
  const area = String(name ?? '').trim()
  return {
    ...plan,
    tables: plan.tables.map((t) => {
      if (t.table !== table) return t
      const { area: _old, ...rest } = t
      return area ? { ...rest, area } : rest
    }),
  }
}

/** The plan's areas, each once, sorted by name. */
export function areasOf(plan) {
  return [...new Set((plan?.tables ?? []).flatMap((t) => (t.area ? [t.area] : [])))].sort((a, b) => a.localeCompare(b))
}

/** The area of the table an order is located at (its locationName), or undefined: at no table, or at one without an area. */
export function areaOfOrder(plan, order) {
  if (!plan || !order.locationName) return undefined
  return plan.tables.find((t) => String(t.table) === String(order.locationName))?.area
}

/** Orders grouped by table number ('' for none), for the floor's tiles. */
export function ordersByTable(orders) {
  const groups = new Map()
  for (const order of orders) {
    const key = order.locationName ? String(order.locationName) : ''
    if (!groups.has(key)) groups.set(key, [])
    groups.get(key).push(order)
  }
  return groups
}
