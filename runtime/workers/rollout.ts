// The site's side of a rollout from headquarters (issue 46; docs/hq.md "Rollouts"). HQ tells
// the site on its rollout topic (retained, so a site away gets it when it is back); the agent
//   downloading          fetches the archive from HQ (resumable, checksum-checked, at most
//                        fleet.rollout.bandwidthKiBps) into <data dir>/rollout/ (0700, the
//                        gateway user's own), with the signature HQ sent beside it
//   waiting-for-window   until fleet.rollout.window allows (its hours, no active order)
//   upgrading            queues the upgrade (runtime/upgrade/queued.ts: root runs the ordinary
//                        `gateway upgrade`, which restarts this gateway, checks it, and rolls
//                        back by itself when the new version is not healthy)
//   done | failed        from the upgrade's result, read by whichever version runs then
//   cancelled            HQ told it to stand down before it was upgrading
// Each step is in the status message (`rollout`), published at once; the state is kept in
// <data dir>/rollout/state.json, so a restart (the upgrade's own) carries on.
import { existsSync, mkdirSync, lstatSync, promises as fs, readFileSync } from 'node:fs'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FleetConfig } from '../../lib/fleet/config.ts'
import type { FleetRolloutAgent } from '../../lib/fleet/service.ts'
import type { Logger } from '../../lib/kernel/log.ts'
import { fetchRelease } from '../upgrade/fetch-release.ts'
import type { InstallLayout } from '../upgrade/layout.ts'
import { readResult, readTaken, requestFile, rolloutDir, sameRequest, type UpgradeRequest } from '../upgrade/queued-record.ts'
import type { RolloutCommand, RolloutUpgradeCommand } from '../../lib/fleet/messages.ts'

export type AgentState = 'downloading' | 'waiting-for-window' | 'upgrading' | 'done' | 'failed' | 'cancelled'

interface Kept {
  command: RolloutUpgradeCommand
  state: AgentState
  reason: string | null
  at: string
}

export interface RolloutAgentDeps {
  config: FleetConfig['rollout']
  dataDir: string
  layout: Pick<InstallLayout, 'rolloutResult' | 'rolloutTaken'>
  runningVersion: string
  timezone: () => string
  activeOrders: () => number
  /** The status message changed: publish it now. */
  changed: () => void
  log: Logger
  /** How often the window and the upgrade's result are looked at. */
  pollMs?: number
  /** No result this long after the upgrade was queued: failed (nothing ran it: the path unit missing?). */
  upgradeLimitMs?: number
  now?: () => number
}

const finished: ReadonlySet<AgentState> = new Set(['done', 'failed', 'cancelled'])

/** Whether `now` (ms) is inside "HH:MM-HH:MM" in the zone (a range may span midnight). */
export function insideHours(hours: string, timezone: string, now: number): boolean {
  const [from, to] = hours.split('-').map((hm) => Number(hm.slice(0, 2)) * 60 + Number(hm.slice(3, 5))) as [number, number]
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone: timezone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(now)
  const minutes = Number(parts.find((p) => p.type === 'hour')!.value) * 60 + Number(parts.find((p) => p.type === 'minute')!.value)
  return from <= to ? minutes >= from && minutes < to : minutes >= from || minutes < to
}

function parseCommand(payload: Buffer): RolloutCommand | null {
  try {
    const value = JSON.parse(payload.toString('utf8')) as Record<string, unknown>
    if (!Number.isInteger(value.rolloutId)) return null
    if (value.action === 'stand-down') return { rolloutId: value.rolloutId as number, action: 'stand-down' }
    const strings = ['version', 'sha256', 'url', 'secret'] as const
    if (value.action !== 'upgrade' || !Number.isInteger(value.attempt) || !Number.isInteger(value.size) || strings.some((k) => typeof value[k] !== 'string'))
      return null
    if (!/^[0-9A-Za-z.+-]{1,64}$/.test(value.version as string) || !/^[0-9a-f]{64}$/.test(value.sha256 as string) || !/^https?:\/\//.test(value.url as string))
      return null
    return value as unknown as RolloutUpgradeCommand
  } catch {
    return null
  }
}

export class RolloutAgent implements FleetRolloutAgent {
  readonly #deps: RolloutAgentDeps
  readonly #dir: string
  #kept: Kept | null = null
  #abort: AbortController | null = null
  #work: Promise<void> = Promise.resolve()
  #writing: Promise<void> = Promise.resolve()
  #stopped = false

  constructor(deps: RolloutAgentDeps) {
    this.#deps = deps
    this.#dir = rolloutDir(deps.dataDir)
  }

  /** Reads the kept state and carries on with an unfinished rollout. */
  start(): void {
    try {
      this.#kept = JSON.parse(readFileSync(path.join(this.#dir, 'state.json'), 'utf8')) as Kept
    } catch {
      this.#kept = null
    }
    const kept = this.#kept
    if (kept && !finished.has(kept.state)) this.#begin(kept.command, kept.state === 'upgrading', true)
  }

  async stop(): Promise<void> {
    this.#stopped = true
    this.#abort?.abort()
    await this.#work.catch(() => undefined)
  }

  report(): Record<string, unknown> | null {
    const kept = this.#kept
    if (!kept) return null
    return {
      rolloutId: kept.command.rolloutId,
      attempt: kept.command.attempt,
      state: kept.state,
      reason: kept.reason,
      version: kept.command.version,
      at: kept.at,
    }
  }

  handle(payload: Buffer): void {
    const command = parseCommand(payload)
    if (!command) {
      this.#deps.log.warn('rollout: a command from HQ that is not one: ignored')
      return
    }
    const kept = this.#kept
    if (command.action === 'stand-down') {
      if (kept?.command.rolloutId === command.rolloutId && (kept.state === 'downloading' || kept.state === 'waiting-for-window')) {
        this.#abort?.abort()
        void this.#set('cancelled', 'HQ told this site to stand down').then(() => this.#cleanUp())
      }
      return
    }
    // The same command again (retained: sent at every reconnection): nothing new.
    if (kept && kept.command.rolloutId === command.rolloutId && kept.command.attempt === command.attempt) return
    if (kept?.state === 'upgrading') {
      this.#deps.log.warn({ rollout: command.rolloutId }, 'rollout: an upgrade is under way; the new command waits for its end')
      return
    }
    this.#abort?.abort()
    this.#begin(command, false)
  }

  #begin(command: RolloutUpgradeCommand, upgrading: boolean, restarted = false): void {
    const previous = this.#work
    this.#work = previous.catch(() => undefined).then(() => this.#run(command, upgrading, restarted))
  }

  async #set(state: AgentState, reason: string | null, command = this.#kept?.command): Promise<void> {
    if (!command) return
    this.#kept = { command, state, reason, at: new Date(this.#now()).toISOString() }
    this.#deps.log.info({ rollout: command.rolloutId, version: command.version, state, reason }, 'rollout: step')
    const kept = JSON.stringify(this.#kept)
    // One write at a time (a stand-down may come while a step is being written), in order.
    this.#writing = this.#writing.then(async () => {
      await fs.mkdir(this.#dir, { recursive: true, mode: 0o700 })
      await fs.writeFile(path.join(this.#dir, 'state.json.partial'), kept, { mode: 0o600 })
      await fs.rename(path.join(this.#dir, 'state.json.partial'), path.join(this.#dir, 'state.json'))
    })
    await this.#writing
    this.#deps.changed()
  }

  #now(): number {
    return this.#deps.now?.() ?? Date.now()
  }

  async #run(command: RolloutUpgradeCommand, upgrading: boolean, restarted: boolean): Promise<void> {
    const abort = new AbortController()
    this.#abort = abort
    const signal = abort.signal
    try {
      if (!upgrading) {
        if (command.version === this.#deps.runningVersion) return await this.#set('done', `already runs ${command.version}`, command)
        await this.#set('downloading', null, command)
        const archive = path.join(this.#privateDir(), `tracker-gateway-${command.version}.tar.gz`)
        if (!existsSync(archive)) {
          await fetchRelease({ ...command, file: archive, bytesPerSecond: this.#deps.config.bandwidthKiBps * 1024, signal })
        }
        await fs.writeFile(`${archive}.sig`, JSON.stringify(command.signature), { mode: 0o600 })
        await this.#waitForWindow(command, signal)
        await this.#set('upgrading', null, command)
        const request: UpgradeRequest = {
          rolloutId: command.rolloutId,
          attempt: command.attempt,
          version: command.version,
          archive: path.basename(archive),
          requestedAt: new Date(this.#now()).toISOString(),
        }
        await this.#queue(request)
      } else if (restarted) await this.#queueAgainIfLost(command)
      await this.#waitForResult(command, signal)
    } catch (error) {
      if (signal.aborted) return
      await this.#set('failed', (error as Error).message, command)
      await this.#cleanUp()
    }
  }

  async #queue(request: UpgradeRequest): Promise<void> {
    const file = requestFile(this.#deps.dataDir)
    await fs.writeFile(`${file}.partial`, JSON.stringify(request), { mode: 0o600 })
    await fs.rename(`${file}.partial`, file)
  }

  /**
   * Kept 'upgrading' at start: the gateway may have been cut off between keeping that step and
   * queuing the request. Root records a request taken before removing it and removes that
   * record only after writing the result, so when neither the request, nor that record, nor a
   * result for this attempt is there (looked at in that order), it was never queued.
   */
  async #queueAgainIfLost(command: RolloutUpgradeCommand): Promise<void> {
    const { layout } = this.#deps
    if (existsSync(requestFile(this.#deps.dataDir))) return
    if (sameRequest(await readTaken(layout.rolloutTaken), command)) return
    if (sameRequest(await readResult(layout.rolloutResult), command)) return
    const archive = `tracker-gateway-${command.version}.tar.gz`
    if (!existsSync(path.join(this.#dir, archive))) throw new Error('the upgrade was never queued and its archive is gone (the gateway was cut off)')
    this.#deps.log.warn({ rollout: command.rolloutId }, 'rollout: the gateway was cut off before it queued the upgrade: queued now')
    await this.#queue({
      rolloutId: command.rolloutId,
      attempt: command.attempt,
      version: command.version,
      archive,
      requestedAt: new Date(this.#now()).toISOString(),
    })
  }

  /** The rollout dir, 0700 and the gateway's own; another user's or an open one is refused. */
  #privateDir(): string {
    mkdirSync(this.#dir, { recursive: true, mode: 0o700 })
    const info = lstatSync(this.#dir)
    if (!info.isDirectory() || info.uid !== process.getuid?.() || (info.mode & 0o077) !== 0)
      throw new Error(`${this.#dir} must be a directory only this gateway's user can open (0700): nothing downloaded`)
    return this.#dir
  }

  async #waitForWindow(command: RolloutUpgradeCommand, signal: AbortSignal): Promise<void> {
    const { window } = this.#deps.config
    const closedBecause = () => {
      if (window.hours && !insideHours(window.hours, this.#deps.timezone(), this.#now())) return `outside the hours ${window.hours}`
      if (window.noActiveOrders && this.#deps.activeOrders() > 0) return 'orders are active'
      return null
    }
    let reason = closedBecause()
    while (reason !== null) {
      if (this.#kept?.state !== 'waiting-for-window' || this.#kept.reason !== reason) await this.#set('waiting-for-window', reason, command)
      await sleep(this.#deps.pollMs ?? 15_000, undefined, { signal })
      reason = closedBecause()
    }
  }

  async #waitForResult(command: RolloutUpgradeCommand, signal: AbortSignal): Promise<void> {
    for (;;) {
      const result = await readResult(this.#deps.layout.rolloutResult)
      if (sameRequest(result, command)) {
        await this.#set(result!.ok ? 'done' : 'failed', result!.message, command)
        await this.#cleanUp()
        return
      }
      if (this.#stopped) return
      const queuedAt = Date.parse(this.#kept?.at ?? '')
      if (this.#now() - queuedAt > (this.#deps.upgradeLimitMs ?? 2 * 3_600_000)) {
        if (sameRequest(await readTaken(this.#deps.layout.rolloutTaken), command))
          throw new Error('the queued upgrade began and never ended (its runner cut off? systemctl status tracker-gateway-rollout; a restart of the gateway settles it)')
        await fs.rm(requestFile(this.#deps.dataDir), { force: true })
        throw new Error('the queued upgrade never ran (is tracker-gateway-rollout.path enabled? systemctl status tracker-gateway-rollout)')
      }
      await sleep(this.#deps.pollMs ?? 2_000, undefined, { signal })
    }
  }

  /** The downloaded archive goes once the rollout is over for this site (state.json stays). */
  async #cleanUp(): Promise<void> {
    const names = await fs.readdir(this.#dir).catch(() => [] as string[])
    for (const name of names) if (name.startsWith('tracker-gateway-')) await fs.rm(path.join(this.#dir, name), { force: true })
  }
}
