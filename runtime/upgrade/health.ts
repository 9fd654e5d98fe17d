// Whether the gateway the service manager runs is healthy after a switch: its HTTP port
// answers with the expected version (so it opened its data: the port opens after the
// stores), the radio is in the state it was in before the upgrade (up if it was up), and the
// service manager did not restart it in a loop; then it must stay so for a short while. All
// within a time limit; the reason of the last failed look is what the upgrade reports.
import { setTimeout as sleep } from 'node:timers/promises'
import { sendControl } from '../control/control.ts'
import { readDataDirOwner } from '../wiring/data-dir-lock.ts'
import type { ServiceManager, ServiceState } from './service-manager.ts'

export interface GatewaySnapshot {
  pid: number
  port: number
  version: string
  /** Whether the radio is up (null: the gateway did not say). */
  radioUp: boolean | null
}

export interface HealthOptions {
  dataDir: string
  service: ServiceManager
  expectVersion: string
  /** The radio's state before the upgrade: up then means up now. */
  radioWasUp: boolean | null
  limitMs: number
  /** How long it must stay healthy (same process, no restart) after the first good look. */
  stableMs: number
  /** The service's restart count right after the restart (its NRestarts). */
  restartsBefore: number
}

export class UnhealthyError extends Error {
  override name = 'UnhealthyError'
}

/** Looks at the gateway on the data dir once: throws UnhealthyError saying what is wrong. */
export async function snapshot(dataDir: string): Promise<GatewaySnapshot> {
  const owner = readDataDirOwner(dataDir)
  if (!owner || owner.port === null) throw new UnhealthyError(`no gateway listens on data dir ${dataDir}`)
  const host = !owner.host || owner.host === '0.0.0.0' || owner.host === '::' ? '127.0.0.1' : owner.host
  let version: string
  try {
    const answer = await fetch(`http://${host.includes(':') ? `[${host}]` : host}:${owner.port}/api/v2/capabilities`, { signal: AbortSignal.timeout(5_000) })
    const body = (await answer.json()) as { capabilities?: { appBundleVersion?: string } }
    version = String(body.capabilities?.appBundleVersion)
  } catch (error) {
    throw new UnhealthyError(`the HTTP port ${owner.port} does not answer (${(error as Error).message})`)
  }
  const radio = (await sendControl(dataDir, 'radio.summary', {}, 5_000).catch(() => null)) as { up?: boolean; lastError?: string | null } | null
  return { pid: owner.pid, port: owner.port, version, radioUp: typeof radio?.up === 'boolean' ? radio.up : null }
}

function loopReason(state: ServiceState, before: number): string | null {
  if (state.active === 'failed') return 'the service failed (the service manager gave up on it)'
  const exits = state.restarts - before
  return exits >= 2 ? `restart loop: the service exited ${exits} times since the switch` : null
}

async function look(options: HealthOptions): Promise<{ state: ServiceState; seen: GatewaySnapshot }> {
  const state = await options.service.state()
  const loop = loopReason(state, options.restartsBefore)
  if (loop) throw new UnhealthyError(loop)
  const seen = await snapshot(options.dataDir)
  if (seen.version !== options.expectVersion) throw new UnhealthyError(`version ${seen.version} answers, not ${options.expectVersion}`)
  if (state.mainPid !== 0 && seen.pid !== state.mainPid)
    throw new UnhealthyError(`the data dir's gateway (PID ${seen.pid}) is not the service's (PID ${state.mainPid})`)
  if (options.radioWasUp === true && seen.radioUp !== true) throw new UnhealthyError('the radio is down (it was up before the upgrade)')
  return { state, seen }
}

/** Resolves when healthy and stable; throws UnhealthyError with the last reason when the limit passes first. */
export async function waitHealthy(options: HealthOptions): Promise<GatewaySnapshot> {
  const deadline = Date.now() + options.limitMs
  let reason = 'not looked at yet'
  for (;;) {
    try {
      const first = await look(options)
      await sleep(options.stableMs)
      const again = await look(options)
      if (again.seen.pid !== first.seen.pid || again.state.restarts !== first.state.restarts)
        throw new UnhealthyError(`the gateway restarted within ${options.stableMs} ms of answering`)
      return again.seen
    } catch (error) {
      if (!(error instanceof UnhealthyError)) throw error
      reason = error.message
      // A loop or a failed unit does not mend itself: no use waiting out the limit.
      if (/restart loop|service failed/.test(reason)) throw error
    }
    if (Date.now() >= deadline) throw new UnhealthyError(`not healthy within ${Math.round(options.limitMs / 1000)} s: ${reason}`)
    await sleep(250)
  }
}
