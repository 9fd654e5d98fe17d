// Structured logs: one JSON object a line on stdout, verbosity from LOG_LEVEL.
import { pino, type Logger as PinoLogger, type DestinationStream } from 'pino'

export type Logger = PinoLogger

export function createLogger(options: { level?: string; destination?: DestinationStream } = {}): Logger {
  const level = options.level ?? process.env.LOG_LEVEL ?? 'info'
  return pino(
    {
      level,
      base: { service: 'tracker-gateway' },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Authorization headers and tokens never reach the log, whatever a caller passes in.
      redact: { paths: ['token', '*.token', 'authorization', '*.authorization', 'accesstoken', '*.accesstoken'], censor: '[redacted]' },
    },
    options.destination ?? pino.destination({ dest: 1, sync: false }),
  )
}

/** A logger that keeps its lines in memory, for tests that read what was logged. */
export function memoryLogger(level = 'debug'): { log: Logger; lines: () => Record<string, unknown>[]; text: () => string } {
  const chunks: string[] = []
  const destination = { write: (chunk: string) => void chunks.push(chunk) }
  const log = createLogger({ level, destination })
  return {
    log,
    text: () => chunks.join(''),
    lines: () => chunks.join('').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>),
  }
}
