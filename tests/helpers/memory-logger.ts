// A logger that keeps its lines in memory, for tests that read what was logged.
import { createLogger, type Logger } from '../../lib/kernel/log.ts'

export function memoryLogger(level = 'debug'): { log: Logger; lines: () => Record<string, unknown>[]; text: () => string } {
  const chunks: string[] = []
  const destination = { write: (chunk: string) => void chunks.push(chunk) }
  const log = createLogger({ level, destination })
  // Reading releases any held request lines first, so tests see them without waiting.
  const text = () => {
    log.flush()
    return chunks.join('')
  }
  return {
    log,
    text,
    lines: () =>
      text()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  }
}
