// Background parts of the gateway start in order and stop in reverse.
import type { Logger } from '../../lib/kernel/log.ts'

export interface Part {
  name: string
  start(): Promise<void>
  stop(): Promise<void>
}

export async function startParts(parts: Part[], log: Logger): Promise<() => Promise<void>> {
  const started: Part[] = []
  const stopAll = async () => {
    for (const part of [...started].reverse()) {
      try {
        await part.stop()
        log.debug({ part: part.name }, 'stopped')
      } catch (error) {
        log.error({ err: error, part: part.name }, 'stop failed')
      }
    }
    started.length = 0
  }
  try {
    for (const part of parts) {
      await part.start()
      started.push(part)
      log.debug({ part: part.name }, 'started')
    }
  } catch (error) {
    await stopAll()
    throw error
  }
  return stopAll
}
