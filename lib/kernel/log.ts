// Structured logs: one JSON object a line on stdout, verbosity from LOG_LEVEL.
import { pino, type Logger as PinoLogger, type DestinationStream } from 'pino'
import { HoldingDestination } from './log-destination.ts'

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
    // Request lines may wait a moment there (lib/kernel/log-destination.ts); other lines do not.
    new HoldingDestination(options.destination ?? pino.destination({ dest: 1, sync: false })),
  )
}
