// The radio process logs through the gateway's logger: each pino line it writes comes over
// IPC and is logged again here at its own level, with the radio process's id, so one log
// stream (and one LOG_LEVEL) covers both processes.
import type { Logger } from '../kernel/log.ts'

const levels: Record<number, 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal'> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
}

export function relayChildLog(log: Logger, line: string, pid: number | undefined): void {
  for (const text of line.split('\n')) {
    if (!text.trim()) continue
    let entry: Record<string, unknown>
    try {
      entry = JSON.parse(text) as Record<string, unknown>
    } catch {
      log.info({ radioPid: pid }, text)
      continue
    }
    // The parent's logger adds its own time, host, pid and service.
    const { level, msg, time: _time, pid: _pid, hostname: _hostname, service: _service, ...fields } = entry
    const method = levels[level as number] ?? 'info'
    log[method]({ ...fields, radioPid: pid }, typeof msg === 'string' ? msg : '')
  }
}
