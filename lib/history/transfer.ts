// Moving history in and out as files: NDJSON import (validated line by line, idempotent on
// uuid, in short transactions so a running gateway's clears are never held up for long)
// and NDJSON/CSV export, streamed row by row with backpressure, so memory stays constant
// whatever the history's size.
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import type { Readable, Writable } from 'node:stream'
import { isUuid, type OrderSummary, type OrderType } from '../orders/types.ts'
import { formatLocal, formatOffset, parseLocal } from '../kernel/time.ts'
import type { HistoryFilter } from './query.ts'
import type { HistoryStore } from './store.ts'

/** Lines longer than this are rejected unread (a summary is about 250 bytes). */
export const maxLineLength = 4096

const allowedKeys = new Set(['uuid', 'name', 'type', 'orderType', 'locationName', 'orderStarted', 'orderLocated', 'orderCleared'])
const orderTypes: Record<string, OrderType> = { TO_GO: 'TO_GO', ON_PREMISE: 'ON_PREMISE', ON_PREMISES: 'ON_PREMISE' }
const timestampPattern = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,3}))?(Z|[+-]\d{2}:\d{2})$/
const digits = /^[0-9]{1,10}$/

export class LineRejected extends Error {}

function reject(reason: string): never {
  throw new LineRejected(reason)
}

function positiveInteger(value: unknown, key: string): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && digits.test(value) ? Number(value) : NaN
  if (!Number.isSafeInteger(n) || n < 1 || n > 2 ** 31 - 1) reject(`${key} must be a positive integer`)
  return n
}

/**
 * A timestamp as exported (ISO 8601 with seconds, optional milliseconds and a mandatory
 * Z or ±HH:MM, so it names one instant) or as epoch milliseconds.
 */
export function parseTimestamp(value: unknown, key: string): number {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) reject(`${key} must be epoch milliseconds or an ISO time with an offset`)
    return value
  }
  const match = typeof value === 'string' ? timestampPattern.exec(value) : null
  if (!match) return reject(`${key} must be YYYY-MM-DDTHH:MM:SS with Z or ±HH:MM (or epoch milliseconds)`)
  const ms = parseLocal(match[1] + match[3], 'UTC', { separator: 'T', allowOffset: true })
  if (ms === undefined) reject(`${key} is not a real date and time`)
  return ms + (match[2] ? Number(match[2].padEnd(3, '0')) : 0)
}

/** Reads one NDJSON line into a summary, or throws LineRejected with the reason. */
export function parseSummaryLine(line: string): OrderSummary {
  if (line.length > maxLineLength) reject(`line longer than ${maxLineLength} characters`)
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    reject('not JSON')
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) reject('not a JSON object')
  const record = value as Record<string, unknown>
  for (const key of Object.keys(record)) if (!allowedKeys.has(key)) reject(`unknown key "${key.slice(0, 40)}"`)
  if (typeof record.uuid !== 'string' || !isUuid(record.uuid)) reject('uuid must be a UUID')
  if (record.type !== undefined && record.type !== 'ORDER_SUMMARY') reject('type must be ORDER_SUMMARY')
  const orderType = typeof record.orderType === 'string' && Object.hasOwn(orderTypes, record.orderType) ? orderTypes[record.orderType] : undefined
  if (!orderType) reject('orderType must be TO_GO or ON_PREMISE')
  const location = record.locationName
  const summary: OrderSummary = {
    uuid: record.uuid.toLowerCase(),
    name: positiveInteger(record.name, 'name'),
    orderType,
    locationName: location === undefined || location === null || location === '' ? null : positiveInteger(location, 'locationName'),
    orderStarted: parseTimestamp(record.orderStarted, 'orderStarted'),
    orderLocated: record.orderLocated === undefined || record.orderLocated === null ? null : parseTimestamp(record.orderLocated, 'orderLocated'),
    orderCleared: parseTimestamp(record.orderCleared, 'orderCleared'),
  }
  if (summary.orderCleared < summary.orderStarted) reject('orderCleared is before orderStarted')
  if (summary.orderLocated !== null && (summary.orderLocated < summary.orderStarted || summary.orderLocated > summary.orderCleared)) {
    reject('orderLocated is outside orderStarted..orderCleared')
  }
  return summary
}

export interface RejectedLine {
  line: number
  reason: string
}

export interface ImportReport {
  /** Non-blank lines read. */
  lines: number
  inserted: number
  /** Valid lines whose uuid was already in history (skipped: import is idempotent). */
  duplicates: number
  rejectedCount: number
  /** The first rejected lines (up to maxRejectsKept), with their reasons. */
  rejected: RejectedLine[]
}

export interface ImportOptions {
  /** Rows per transaction. Short transactions keep the gateway's own writes waiting little. */
  batchSize?: number
  maxRejectsKept?: number
  /** Called after each batch with the bytes and lines read so far. */
  onProgress?: (bytesRead: number, lines: number) => void
}

export async function importNdjson(store: HistoryStore, input: Readable, options: ImportOptions = {}): Promise<ImportReport> {
  const batchSize = options.batchSize ?? 500
  const maxRejectsKept = options.maxRejectsKept ?? 100
  const report: ImportReport = { lines: 0, inserted: 0, duplicates: 0, rejectedCount: 0, rejected: [] }
  let batch: OrderSummary[] = []
  let bytesRead = 0
  let lineNumber = 0
  const flush = () => {
    if (batch.length) {
      const inserted = store.insertMany(batch)
      report.inserted += inserted
      report.duplicates += batch.length - inserted
      batch = []
    }
    options.onProgress?.(bytesRead, report.lines)
  }
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    lineNumber++
    bytesRead += Buffer.byteLength(line) + 1
    if (line.trim() === '') continue
    report.lines++
    try {
      batch.push(parseSummaryLine(line))
    } catch (error) {
      if (!(error instanceof LineRejected)) throw error
      report.rejectedCount++
      if (report.rejected.length < maxRejectsKept) report.rejected.push({ line: lineNumber, reason: error.message })
    }
    if (batch.length >= batchSize) flush()
  }
  flush()
  return report
}

/** ISO 8601 with the zone's offset, milliseconds only when there are some (exact round trip). */
export function exportTimestamp(ms: number, timezone: string): string {
  const fraction = ms % 1000 === 0 ? '' : `.${String(((ms % 1000) + 1000) % 1000).padStart(3, '0')}`
  return formatLocal(ms, timezone) + fraction + formatOffset(ms, timezone)
}

export type ExportFormat = 'ndjson' | 'csv'

const csvColumns = ['uuid', 'name', 'orderType', 'locationName', 'orderStarted', 'orderLocated', 'orderCleared'] as const

/** One export line (with its newline) in the API's summary shape. */
export function exportLine(summary: OrderSummary, format: ExportFormat, timezone: string): string {
  const fields = {
    uuid: summary.uuid,
    name: String(summary.name),
    type: 'ORDER_SUMMARY',
    orderType: summary.orderType,
    locationName: summary.locationName === null ? null : String(summary.locationName),
    orderStarted: exportTimestamp(summary.orderStarted, timezone),
    orderLocated: summary.orderLocated === null ? null : exportTimestamp(summary.orderLocated, timezone),
    orderCleared: exportTimestamp(summary.orderCleared, timezone),
  }
  if (format === 'ndjson') return `${JSON.stringify(fields)}\n`
  // Every value is a UUID, digits, an enum or a timestamp: nothing needs CSV quoting.
  return `${csvColumns.map((column) => fields[column] ?? '').join(',')}\n`
}

export interface ExportOptions {
  format: ExportFormat
  filter?: HistoryFilter
  timezone: string
}

/** Writes every matching summary, oldest first, honouring backpressure; returns the count. */
export async function exportSummaries(store: HistoryStore, output: Writable, options: ExportOptions): Promise<number> {
  let count = 0
  let chunk = options.format === 'csv' ? `${csvColumns.join(',')}\n` : ''
  for (const summary of store.iterate(options.filter ?? {})) {
    chunk += exportLine(summary, options.format, options.timezone)
    count++
    if (chunk.length >= 64 * 1024) {
      if (!output.write(chunk)) await once(output, 'drain')
      chunk = ''
    }
  }
  if (chunk && !output.write(chunk)) await once(output, 'drain')
  return count
}
