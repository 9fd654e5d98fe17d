// The site's side of a rollout from headquarters (issue 46; docs/hq.md "Rollouts"). HQ tells
// the site on its rollout topic (retained, so a site away gets it when it is back); the agent
//   downloading          fetches the archive from HQ (resumable, checksum-checked, at most
//                        fleet.rollout.bandwidthKiBps) into <data dir>/rollout/ (0700, the
//                        gateway user's own), with the signature HQ sent beside it; a line
//                        cut is retried (the .part kept) until downloadRetryMs without progress
//   waiting-for-window   until fleet.rollout.window allows (its hours, no active order), and,
//                        after a restart or a lost broker connection, until HQ's command has
//                        come again (a pause or cancel published meanwhile is heard before
//                        the site upgrades)
//   upgrading            queues the upgrade (runtime/upgrade/queued.ts: root runs the ordinary
//                        `gateway upgrade`, which restarts this gateway, checks it, and rolls
//                        back by itself when the new version is not healthy)
//   done | failed        from the upgrade's result, read by whichever version runs then
//   cancelled            HQ told it to stand down (a pause, a halt, a cancel) before it was
//                        upgrading; what it downloaded stays for a resume (the next command
//                        for another version removes it)
// Each step is in the status message (`rollout`), published at once; the state is kept in
// <data dir>/rollout/state.json, so a restart (the upgrade's own, or a power cut) carries on.
import { existsSync, mkdirSync, lstatSync, promises as fs, readFileSync } from 'node:fs'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FleetConfig, HqTrust } from '../../lib/fleet/config.ts'
import type { FleetRolloutAgent } from '../../lib/fleet/service.ts'
import type { Logger } from '../../lib/kernel/log.ts'
import { fetchRelease, ReleaseDownloadError, sha256Of, sizeOf } from '../upgrade/fetch-release.ts'
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
  /** The CA(s) HQ's HTTPS must be signed by, read at each download (lib/fleet/config.ts hqTrust); undefined: the public CAs. */
  hqTrust?: () => HqTrust | undefined
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
  /** A download that has not progressed this long (the line to HQ cut, HQ away) fails. */
  downloadRetryMs?: number
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
  /** The command of the latest run begun (running, or waiting for the one before it to end), and its stop. */
  #current: { command: RolloutUpgradeCommand; abort: AbortController } | null = null
  #work: Promise<void> = Promise.resolve()
  #writing: Promise<void> = Promise.resolve()
  #stopped = false
  /** HQ's command has come since this gateway started or last reconnected (a stand-down may have replaced it meanwhile). */
  #heard = false
  /** A command that came while an upgrade ran: begun once its result is in. */
  #deferred: RolloutUpgradeCommand | null = null

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
    if (kept && !finished.has(kept.state)) this.#begin(kept.command, kept.state === 'upgrading' ? 'restarted-upgrading' : 'restarted')
    else if (kept) this.#current = { command: kept.command, abort: new AbortController() }
  }

  async stop(): Promise<void> {
    this.#stopped = true
    this.#current?.abort.abort()
    await this.#work.catch(() => undefined)
    await this.#writing.catch(() => undefined)
  }

  /** The broker connection lost: no upgrade begins before HQ's command has come again (it may be a stand-down now). */
  disconnected(): void {
    this.#heard = false
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
    const current = this.#current
    const kept = this.#kept
    if (command.action === 'stand-down') {
      if (this.#deferred?.rolloutId === command.rolloutId) this.#deferred = null
      if (current?.command.rolloutId !== command.rolloutId) return
      this.#heard = true
      // Past standing down once the site keeps 'upgrading' (or the run has ended).
      const settled = kept?.command === current.command && (kept.state === 'upgrading' || finished.has(kept.state))
      if (settled) return
      // Synchronously: the run stopped here (or not yet begun) sets no step after this one.
      current.abort.abort()
      void this.#set('cancelled', 'HQ told this site to stand down', current.command).catch((error: Error) =>
        this.#deps.log.error({ err: error }, 'rollout: the stand-down could not be kept'),
      )
      return
    }
    // The same command again (retained: sent at every reconnection): nothing new, but HQ still wants it.
    if (current && current.command.rolloutId === command.rolloutId && current.command.attempt === command.attempt) {
      this.#heard = true
      return
    }
    if (kept?.state === 'upgrading') {
      this.#deps.log.warn({ rollout: command.rolloutId }, 'rollout: an upgrade is under way; the new command waits for its end')
      this.#deferred = command
      return
    }
    this.#heard = true
    this.#begin(command, 'told')
  }

  /** A run after the one before it (stopped first); `how`: a new command, or the kept one after a restart. */
  #begin(command: RolloutUpgradeCommand, how: 'told' | 'restarted' | 'restarted-upgrading'): void {
    this.#current?.abort.abort()
    const abort = new AbortController()
    this.#current = { command, abort }
    this.#work = this.#work.catch(() => undefined).then(() => this.#run(command, abort.signal, how))
  }

  /** Keeps and publishes a step; a run that was stopped (signal aborted) writes nothing more. */
  async #set(state: AgentState, reason: string | null, command = this.#kept?.command, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted()
    if (!command) return
    this.#kept = { command, state, reason, at: new Date(this.#now()).toISOString() }
    this.#deps.log.info({ rollout: command.rolloutId, version: command.version, state, reason }, 'rollout: step')
    const kept = JSON.stringify(this.#kept)
    // One write at a time (a stand-down may come while a step is being written), in order.
    this.#writing = this.#writing
      .catch(() => undefined)
      .then(async () => {
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

  #pollMs(fallback: number): number {
    return this.#deps.pollMs ?? fallback
  }

  async #run(command: RolloutUpgradeCommand, signal: AbortSignal, how: 'told' | 'restarted' | 'restarted-upgrading'): Promise<void> {
    try {
      // Stopped, stood down or replaced before this run began.
      signal.throwIfAborted()
      if (how !== 'restarted-upgrading') {
        if (command.version === this.#deps.runningVersion) return await this.#set('done', `already runs ${command.version}`, command, signal)
        await this.#set('downloading', null, command, signal)
        const archive = path.join(this.#privateDir(), `tracker-gateway-${command.version}.tar.gz`)
        await this.#dropOtherDownloads(command.version)
        await this.#download(command, archive, signal)
        await fs.writeFile(`${archive}.sig`, JSON.stringify(command.signature), { mode: 0o600 })
        await this.#waitForWindow(command, signal)
        // #set checks the signal and keeps 'upgrading' in this same turn of the event loop: a
        // stand-down handled before stops it, one handled after finds the site past standing down.
        await this.#set('upgrading', null, command, signal)
        await this.#queue(command, path.basename(archive))
      } else await this.#queueAgainIfLost(command)
      await this.#waitForResult(command, signal)
    } catch (error) {
      if (signal.aborted) return
      await this.#set('failed', (error as Error).message, command).catch(() => undefined)
      await this.#cleanUp()
    }
  }

  async #queue(command: RolloutUpgradeCommand, archive: string): Promise<void> {
    const request: UpgradeRequest = {
      rolloutId: command.rolloutId,
      attempt: command.attempt,
      version: command.version,
      archive,
      requestedAt: new Date(this.#now()).toISOString(),
    }
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
    await this.#queue(command, archive)
  }

  /** The rollout dir, 0700 and the gateway's own; another user's or an open one is refused. */
  #privateDir(): string {
    mkdirSync(this.#dir, { recursive: true, mode: 0o700 })
    const info = lstatSync(this.#dir)
    if (!info.isDirectory() || info.uid !== process.getuid?.() || (info.mode & 0o077) !== 0)
      throw new Error(`${this.#dir} must be a directory only this gateway's user can open (0700): nothing downloaded`)
    return this.#dir
  }

  /** An archive of another version (a rollout stood down earlier) is not kept once another comes. */
  async #dropOtherDownloads(version: string): Promise<void> {
    const mine = `tracker-gateway-${version}.tar.gz`
    for (const name of await fs.readdir(this.#dir)) {
      if (name.startsWith('tracker-gateway-') && !name.startsWith(`${mine}`)) await fs.rm(path.join(this.#dir, name), { force: true })
    }
  }

  /**
   * The archive, with the checksum HQ announced. One already here (a resume after a stand-down,
   * a restart) is checked again: a power cut after its rename may have left it short. A resumed
   * .part that fails the checksum (a power cut may tear its last write) is fetched again from
   * the start, once. A passing fault is retried, the .part kept, until downloadRetryMs
   * without a byte.
   */
  async #download(command: RolloutUpgradeCommand, archive: string, signal: AbortSignal): Promise<void> {
    if (existsSync(archive)) {
      if ((await sha256Of(archive)) === command.sha256) return
      this.#deps.log.warn({ rollout: command.rolloutId }, 'rollout: the archive kept does not have the announced checksum: downloaded again')
      await fs.rm(archive, { force: true })
    }
    const part = `${archive}.part`
    const limitMs = this.#deps.downloadRetryMs ?? 30 * 60_000
    let lastProgress = this.#now()
    let fetchedAgain = false
    let delay = this.#pollMs(5_000)
    for (;;) {
      const had = await sizeOf(part)
      try {
        const trust = this.#deps.hqTrust?.()
        await fetchRelease({ ...command, file: archive, bytesPerSecond: this.#deps.config.bandwidthKiBps * 1024, trust, signal })
        return
      } catch (error) {
        if (signal.aborted) throw error
        const message = (error as Error).message
        const kind = error instanceof ReleaseDownloadError ? error.kind : 'refused'
        if (kind === 'checksum' && had > 0 && !fetchedAgain) {
          fetchedAgain = true
          this.#deps.log.warn({ rollout: command.rolloutId }, 'rollout: the resumed download failed its checksum: downloading it again from the start')
          continue
        }
        if (kind !== 'transient') throw error
        if ((await sizeOf(part)) > had) {
          lastProgress = this.#now()
          delay = this.#pollMs(5_000)
        }
        if (this.#now() - lastProgress > limitMs) throw new Error(`${message} (no progress for ${Math.round(limitMs / 60_000)} min)`)
        await this.#set('downloading', `retrying: ${message}`, command, signal)
        await sleep(delay, undefined, { signal })
        delay = Math.min(delay * 2, 12 * this.#pollMs(5_000))
      }
    }
  }

  async #waitForWindow(command: RolloutUpgradeCommand, signal: AbortSignal): Promise<void> {
    const { window } = this.#deps.config
    const closedBecause = () => {
      if (window.hours && !insideHours(window.hours, this.#deps.timezone(), this.#now())) return `outside the hours ${window.hours}`
      if (window.noActiveOrders && this.#deps.activeOrders() > 0) return 'orders are active'
      if (!this.#heard) return 'waiting to hear from HQ again (the gateway restarted or lost the broker)'
      return null
    }
    let reason = closedBecause()
    while (reason !== null) {
      if (this.#kept?.state !== 'waiting-for-window' || this.#kept.reason !== reason) await this.#set('waiting-for-window', reason, command, signal)
      await sleep(this.#pollMs(15_000), undefined, { signal })
      reason = closedBecause()
    }
  }

  async #waitForResult(command: RolloutUpgradeCommand, signal: AbortSignal): Promise<void> {
    for (;;) {
      const result = await readResult(this.#deps.layout.rolloutResult)
      if (sameRequest(result, command)) {
        await this.#set(result!.ok ? 'done' : 'failed', result!.message, command)
        await this.#cleanUp()
        const deferred = this.#deferred
        this.#deferred = null
        if (deferred && !this.#stopped) this.#begin(deferred, 'told')
        return
      }
      if (this.#stopped) return
      const queuedAt = Date.parse(this.#kept?.at ?? '')
      if (this.#now() - queuedAt > (this.#deps.upgradeLimitMs ?? 2 * 3_600_000)) {
        if (sameRequest(await readTaken(this.#deps.layout.rolloutTaken), command))
          throw new Error(
            'the queued upgrade began and never ended (its runner cut off? systemctl status tracker-gateway-rollout; a restart of the gateway settles it)',
          )
        await fs.rm(requestFile(this.#deps.dataDir), { force: true })
        throw new Error('the queued upgrade never ran (is tracker-gateway-rollout.path enabled? systemctl status tracker-gateway-rollout)')
      }
      await sleep(this.#pollMs(2_000), undefined, { signal })
    }
  }

  /** The downloaded archive goes once the rollout is over for this site (state.json stays). */
  async #cleanUp(): Promise<void> {
    const names = await fs.readdir(this.#dir).catch(() => [] as string[])
    for (const name of names) if (name.startsWith('tracker-gateway-')) await fs.rm(path.join(this.#dir, name), { force: true })
  }
}
