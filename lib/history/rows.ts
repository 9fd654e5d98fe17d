// How a summary is stored: one row per order, times as milliseconds since the epoch.
import type { OrderSummary, OrderType } from '../orders/types.ts'

export interface SummaryRow {
  uuid: string
  name: number
  orderType: string
  locationName: number | null
  orderStarted: number
  orderLocated: number | null
  orderCleared: number
}

/** The columns of a summary, in SummaryRow order. */
export const summaryColumns = 'uuid, name, orderType, locationName, orderStarted, orderLocated, orderCleared'

export function rowToSummary(row: SummaryRow): OrderSummary {
  return {
    uuid: row.uuid,
    name: row.name,
    orderType: row.orderType as OrderType,
    locationName: row.locationName,
    orderStarted: row.orderStarted,
    orderLocated: row.orderLocated,
    orderCleared: row.orderCleared,
  }
}

/** A row read as an array (in summaryColumns order): cheaper for node:sqlite to build. */
export type SummaryTuple = [string, number, string, number | null, number, number | null, number]

export function tupleToSummary(row: SummaryTuple): OrderSummary {
  return {
    uuid: row[0],
    name: row[1],
    orderType: row[2] as OrderType,
    locationName: row[3],
    orderStarted: row[4],
    orderLocated: row[5],
    orderCleared: row[6],
  }
}
