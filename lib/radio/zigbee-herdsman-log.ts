// herdsman logs through one global hook (zigbee.ts installs this with setLogger): its chatter
// goes to debug, its problems to warn/error. The problems are also kept, because some adapters
// say what really went wrong only in a log line ("Cannot lock port") and then throw a generic
// error ("Failed to start EZSP layer"): the radio adds the last one to its failed start.
import type { Logger } from '../kernel/log.ts'

type Message = string | (() => string)

export interface HerdsmanLogger {
  debug(message: Message, namespace: string): void
  info(message: Message, namespace: string): void
  warning(message: Message, namespace: string): void
  error(message: Message, namespace: string): void
}

export interface HerdsmanLog {
  logger: HerdsmanLogger
  /** The last warning or error herdsman logged since forget(), if any. */
  lastProblem(): string | undefined
  forget(): void
}

export function herdsmanLog(log: Logger): HerdsmanLog {
  const child = log.child({ part: 'herdsman' })
  const text = (message: Message) => (typeof message === 'function' ? message() : String(message))
  const quiet = (message: Message, namespace: string) => {
    // Lambdas are only worth evaluating when someone reads debug logs.
    if (child.isLevelEnabled('debug')) child.debug({ ns: namespace }, text(message))
  }
  let problem: string | undefined
  const problemAt = (level: 'warn' | 'error') => (message: Message, namespace: string) => {
    problem = text(message)
    child[level]({ ns: namespace }, problem)
  }
  return {
    logger: { debug: quiet, info: quiet, warning: problemAt('warn'), error: problemAt('error') },
    lastProblem: () => problem,
    forget: () => void (problem = undefined),
  }
}
