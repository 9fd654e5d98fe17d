// The service manager the upgrade restarts the gateway through: systemctl (on a box, the
// unit deploy/tracker-gateway.service). Found on PATH, so a test puts its stand-in first.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

const run = promisify(execFile)

export interface ServiceState {
  active: string
  mainPid: number
  /** How often the manager restarted the service after it exited (systemd's NRestarts). */
  restarts: number
}

export interface ServiceManager {
  start(): Promise<void>
  stop(): Promise<void>
  restart(): Promise<void>
  state(): Promise<ServiceState>
}

export function systemctl(unit = 'tracker-gateway'): ServiceManager {
  const call = async (...args: string[]) => {
    try {
      return (await run('systemctl', args, { timeout: 120_000 })).stdout
    } catch (error) {
      const failed = error as { stderr?: string; message: string }
      throw new Error(`systemctl ${args.join(' ')} failed: ${(failed.stderr || failed.message).trim()}`)
    }
  }
  return {
    start: async () => void (await call('start', unit)),
    stop: async () => void (await call('stop', unit)),
    restart: async () => void (await call('restart', unit)),
    async state() {
      const fields = new Map(
        (await call('show', unit, '--property=ActiveState,MainPID,NRestarts'))
          .split('\n')
          .filter((line) => line.includes('='))
          .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as const),
      )
      return { active: fields.get('ActiveState') ?? 'unknown', mainPid: Number(fields.get('MainPID') ?? 0), restarts: Number(fields.get('NRestarts') ?? 0) }
    },
  }
}
