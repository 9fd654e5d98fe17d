// The floor plan the board draws (extension: GET/POST /api/v2/floor): a grid of columns and
// rows with each table in one cell, arranged by the manager and kept on the gateway in NeDB,
// so every screen shows the same floor. A new plan is validated whole (distinct tables,
// distinct cells, every cell inside the grid) before anything is written. A table may belong
// to a named area ("Terrace", "Bar"), which a screen may show alone (its filter "area:<name>").
import * as z from '../kernel/schema/index.ts'
import { DomainError } from '../kernel/errors.ts'
import type { Collection } from '../store/db.ts'
import type { FloorPlan } from './types.ts'
export type { FloorTable, FloorPlan } from './types.ts'

export const maxGrid = 30

const cell = z
  .number()
  .int()
  .min(0)
  .max(maxGrid - 1)
/** The longest area name: short enough for a tile and a settings list. */
export const maxAreaName = 24
/**
 * An area's name: 1-24 characters, no spaces around it (a screen's filter names it exactly,
 * so "Bar" and "Bar " must not be two areas), no control characters.
 */
export const areaPattern = /^[^\s\p{Cc}](?:[^\p{Cc}]*[^\s\p{Cc}])?$/u
export const areaName = z
  .string()
  .min(1)
  .max(maxAreaName)
  .regex(areaPattern, 'an area name has no spaces around it and no control characters')
  .describe('The area the table belongs to (1-24 characters, no spaces around it); absent: none')
/**
 * Tables in one plan. The plan travels in one request body (16 KiB at most): the longest
 * table entry without an area, {"table":9999,"x":29,"y":29} and its comma, is 31 bytes, so
 * 500 of them fit in any compact plan, and a plan without areas is never refused for its size.
 */
export const maxFloorTables = 500
export const planSchema = z
  .strictObject({
    columns: z.number().int().min(1).max(maxGrid),
    rows: z.number().int().min(1).max(maxGrid),
    tables: z.array(z.strictObject({ table: z.number().int().min(1).max(9999), x: cell, y: cell, area: areaName.optional() })).max(maxFloorTables),
  })
  .superRefine((plan, ctx) => {
    const tables = new Set<number>()
    const cells = new Set<string>()
    plan.tables.forEach((t, i) => {
      if (t.x >= plan.columns || t.y >= plan.rows)
        ctx.addIssue({ code: 'custom', path: ['tables', i], message: `cell ${t.x},${t.y} is outside the ${plan.columns}x${plan.rows} grid` })
      if (tables.has(t.table)) ctx.addIssue({ code: 'custom', path: ['tables', i, 'table'], message: `table ${t.table} is placed twice` })
      if (cells.has(`${t.x},${t.y}`)) ctx.addIssue({ code: 'custom', path: ['tables', i], message: `two tables in cell ${t.x},${t.y}` })
      tables.add(t.table)
      cells.add(`${t.x},${t.y}`)
    })
  })

/** Out of the box: tables 1-30 (the simulated restaurant's) in six columns. */
export function defaultFloor(): FloorPlan {
  return { columns: 6, rows: 5, tables: Array.from({ length: 30 }, (_, i) => ({ table: i + 1, x: i % 6, y: Math.floor(i / 6) })) }
}

/** A valid plan from untrusted input, or -21 naming the first offending field. */
export function parseFloor(input: unknown): FloorPlan {
  const result = planSchema.safeParse(input)
  if (result.success) return result.data
  const issue = result.error.issues[0]!
  const where = ['floor', ...issue.path]
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
    .join('')
    .slice(1)
  throw new DomainError('SETTINGS_VALUE_INVALID', `${where}: ${issue.message}`.slice(0, 200))
}

type FloorDoc = FloorPlan & { key: 'floor' }

export class FloorService {
  readonly #collection: Collection<FloorDoc>
  #plan: FloorPlan

  private constructor(collection: Collection<FloorDoc>, plan: FloorPlan) {
    this.#collection = collection
    this.#plan = plan
  }

  static async open(collection: Collection<FloorDoc>): Promise<FloorService> {
    const stored = await collection.findOne({ key: 'floor' })
    let plan = defaultFloor()
    if (stored) {
      const { key: _key, _id, ...fields } = stored
      try {
        plan = parseFloor(fields)
      } catch {
        // A plan this version cannot read falls back to the default; the next save replaces it.
      }
    }
    return new FloorService(collection, plan)
  }

  get(): FloorPlan {
    return structuredClone(this.#plan)
  }

  async update(input: unknown): Promise<FloorPlan> {
    const plan = parseFloor(input)
    await this.#collection.update({ key: 'floor' }, { key: 'floor', ...plan }, { upsert: true })
    this.#plan = plan
    return this.get()
  }
}
