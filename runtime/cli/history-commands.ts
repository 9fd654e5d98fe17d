// `gateway history import <file.ndjson>` and `gateway history export [--format ndjson|csv]
// [--from T] [--to T]`. Both open the data dir's history.sqlite directly, not through the
// control socket: SQLite's WAL lets them run beside a running gateway (readers never block
// the gateway; an import writes in short transactions the gateway's clears wait out), and
// they work just the same when the gateway is stopped.
import { createReadStream, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import type { Writable } from 'node:stream'
import type { ParseArgsOptionsConfig } from 'node:util'
import type { HistoryFilter } from '../../lib/history/query.ts'
import { HistoryStore } from '../../lib/history/store.ts'
import { exportSummaries, importNdjson, type ExportFormat, type ImportReport } from '../../lib/history/transfer.ts'
import { systemTimezone } from '../../lib/settings/service.ts'
import { isValidTimezone, parseLocal } from '../../lib/kernel/time.ts'
import type { CliCommand } from './cli-command.ts'

export const historyUsage = `  history import <file.ndjson>                        add order summaries to history (idempotent on uuid)
  history export [--format ndjson|csv] [--from T] [--to T] [--timezone Z]
                                                      write history to stdout, oldest first (T: YYYY-MM-DD[ HH:MM:SS])`

export const historyCliOptions: ParseArgsOptionsConfig = {
  format: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  timezone: { type: 'string' },
}

export function historyFile(dataDir: string): string {
  return path.join(dataDir, 'history.sqlite')
}

/**
 * The gateway's timezone setting, read without opening the settings store (NeDB would
 * rewrite its file under a running gateway): the last settings document in settings.db.
 */
export function storedTimezone(dataDir: string): string | undefined {
  const file = path.join(dataDir, 'settings.db')
  if (!existsSync(file)) return undefined
  let zone: string | undefined
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    try {
      const doc = JSON.parse(line) as { key?: unknown; timezone?: unknown; $$deleted?: unknown }
      if (doc.key === 'settings' && !doc.$$deleted && typeof doc.timezone === 'string' && isValidTimezone(doc.timezone)) {
        zone = doc.timezone
      }
    } catch {
      // A torn last line after a power cut: the gateway drops it too.
    }
  }
  return zone
}

/** --from/--to: a date (midnight) or a date and time, in the gateway's timezone unless an offset is given. */
export function parseBound(text: string, flag: string, timezone: string): number {
  const full = /^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00` : text
  const ms = parseLocal(full, timezone, { separator: 'either', allowOffset: true })
  if (ms === undefined) throw new Error(`--${flag} must be YYYY-MM-DD or YYYY-MM-DD HH:MM:SS (optionally with Z or ±HH:MM), not "${text.slice(0, 40)}"`)
  return ms
}

export interface ProgressOut {
  write(text: string): unknown
  isTTY?: boolean
}

/** A progress bar: redrawn in place on a terminal, a line per 10 % otherwise (logs, pipes). */
export function progressBar(total: number, out: ProgressOut): (done: number, lines: number) => void {
  let lastTenth = -1
  let lastDraw = 0
  return (done, lines) => {
    const fraction = total > 0 ? Math.min(1, done / total) : 1
    const percent = Math.floor(fraction * 100)
    const label = `${String(percent).padStart(3)}% ${lines.toLocaleString('en-US')} lines`
    if (out.isTTY) {
      const now = Date.now()
      if (now - lastDraw < 100 && fraction < 1) return
      lastDraw = now
      const filled = Math.round(fraction * 30)
      out.write(`\r[${'#'.repeat(filled)}${' '.repeat(30 - filled)}] ${label}${fraction >= 1 ? '\n' : ''}`)
      return
    }
    const tenth = Math.floor(fraction * 10)
    if (tenth > lastTenth) {
      lastTenth = tenth
      out.write(`${label}\n`)
    }
  }
}

export function formatReport(report: ImportReport, file: string): string {
  const lines = [`${file}: ${report.lines} lines, ${report.inserted} added, ${report.duplicates} already in history, ${report.rejectedCount} rejected`]
  for (const rejected of report.rejected) lines.push(`  line ${rejected.line}: ${rejected.reason}`)
  if (report.rejectedCount > report.rejected.length) lines.push(`  ... and ${report.rejectedCount - report.rejected.length} more`)
  return lines.join('\n')
}

export interface HistoryCommandIo {
  stdout: Writable
  stderr: ProgressOut
}

export async function historyImport(dataDir: string, file: string | undefined, io: HistoryCommandIo): Promise<string> {
  if (!file) throw new Error('usage: gateway history import <file.ndjson>')
  if (!existsSync(file) || !statSync(file).isFile()) throw new Error(`no such file: ${file}`)
  mkdirSync(dataDir, { recursive: true })
  const store = new HistoryStore(historyFile(dataDir))
  try {
    const report = await importNdjson(store, createReadStream(file), { onProgress: progressBar(statSync(file).size, io.stderr) })
    const text = formatReport(report, file)
    // Rejected lines make the command fail (exit 1) after the valid ones were added.
    if (report.rejectedCount > 0) throw new Error(text)
    return text
  } finally {
    store.close()
  }
}

export async function historyExport(dataDir: string, flags: Record<string, string | boolean | undefined>, io: HistoryCommandIo): Promise<string> {
  const format = (flags.format ?? 'ndjson') as ExportFormat
  if (format !== 'ndjson' && format !== 'csv') throw new Error('--format must be ndjson or csv')
  const timezone = typeof flags.timezone === 'string' ? flags.timezone : (storedTimezone(dataDir) ?? systemTimezone())
  if (!isValidTimezone(timezone)) throw new Error(`--timezone: "${timezone}" is not a timezone`)
  const filter: HistoryFilter = {}
  for (const flag of ['from', 'to'] as const) {
    const value = flags[flag]
    if (value === undefined) continue
    if (typeof value !== 'string') throw new Error(`--${flag} needs a value`)
    if (flag === 'from') filter.createdAfter = parseBound(value, flag, timezone)
    else filter.createdBefore = parseBound(value, flag, timezone)
  }
  const file = historyFile(dataDir)
  if (!existsSync(file)) throw new Error(`no history at ${file}`)
  const store = new HistoryStore(file)
  try {
    await exportSummaries(store, io.stdout, { format, filter, timezone })
  } finally {
    store.close()
  }
  return ''
}

export function historyCommand(io: HistoryCommandIo): CliCommand {
  return async (positionals, flags, dataDir) => {
    const [sub, ...rest] = positionals
    if (sub === 'import') return historyImport(dataDir, rest[0], io)
    if (sub === 'export') return historyExport(dataDir, flags, io)
    throw new Error(`usage:\n${historyUsage}`)
  }
}

export const historyCliCommand: CliCommand = historyCommand({ stdout: process.stdout, stderr: process.stderr })
