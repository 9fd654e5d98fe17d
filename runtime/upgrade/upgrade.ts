// `gateway upgrade FILE|URL`, `gateway upgrade --rollback` and the start-up check
// (`gateway upgrade --recover`, the unit's ExecStartPre). The order of an upgrade, each step
// written to the journal before it is made (journal.ts):
//
//   bring + verify   archive and signature into incoming/ (0700), signature, version   nothing changed
//   preparing        the running gateway must be healthy (its radio state is noted)
//   backed-up        `gateway backup` into the data dir, by the running gateway
//   prepared         unpacked beside the running version: <releases>/<version>-<sha>/,
//                    its dependencies (copied from the running version when the lockfile is
//                    the same, else npm ci) and its compiled tree
//   switching        previous -> the running version; current -> the new one (one rename)
//   switched         the service restarted through the service manager
//   restarted        health check (health.ts) within the time limit
//   committed        or, on a failed check: rolling-back (stop, current -> the old version,
//                    the backup restored if the new version's data format differs, start,
//                    health check) -> rolled-back (or rollback-failed)
//
// A box killed at any step starts again on a working version: recover() (run before every
// start) abandons an upgrade interrupted before the switch and rolls back one interrupted
// after it (whether the new version would have passed its check is not known), then writes
// the result of a rollout's queued upgrade whose runner was cut off (queued-record.ts).
import { execFile } from 'node:child_process'
import { appendFileSync, existsSync, promises as fs, readFileSync } from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { ReleaseRefusedError } from '../../lib/release/signature.ts'
import { bringArchive, privateDir, unpack, verifyArchive } from './archive.ts'
import { snapshot, UnhealthyError, waitHealthy } from './health.ts'
import { finalSteps, readJournal, writeJournal, type UpgradeJournal, type UpgradeStep } from './journal.ts'
import type { InstallLayout } from './layout.ts'
import { lockUpgrades, type UpgradeLock } from './lock.ts'
import { settleTaken } from './queued-record.ts'
import type { ServiceManager } from './service-manager.ts'
import { describeVersion, linkedDir, pruneVersions, setPrevious, switchCurrent } from './versions.ts'

const run = promisify(execFile)

export interface UpgradeContext {
  layout: InstallLayout
  dataDir: string
  service: ServiceManager
  /** Progress lines (the CLI prints them; each also goes to upgrade.log). */
  say(line: string): void
  healthLimitMs: number
  stableMs: number
}

export interface UpgradeOptions {
  source: string
  allowDowngrade?: boolean
  /** The upgrade lock, already held by the caller (queued.ts holds it from the request taken to the result written). */
  lock?: UpgradeLock
}

function logged(ctx: UpgradeContext, line: string): void {
  ctx.say(line)
  try {
    appendFileSync(ctx.layout.log, `${new Date().toISOString()} ${line}\n`)
  } catch {
    // The log is a courtesy: a full disk must not stop a rollback.
  }
}

function step(ctx: UpgradeContext, journal: UpgradeJournal, next: UpgradeStep, reason?: string): void {
  journal.step = next
  if (reason !== undefined) journal.reason = reason
  writeJournal(ctx.layout.journal, journal)
}

function runningDir(ctx: UpgradeContext): string {
  const dir = linkedDir(ctx.layout.current)
  if (!dir || !existsSync(path.join(ctx.layout.releases, dir)))
    throw new ReleaseRefusedError(
      `${ctx.layout.current} is not a link into ${ctx.layout.releases}: install with deploy/install.sh first (it sets up versioned directories)`,
    )
  return dir
}

/** Runs the installed `gateway` command (as the gateway's user: the data dir is its own). */
async function gatewayCommand(ctx: UpgradeContext, ...args: string[]): Promise<string> {
  try {
    return (await run(ctx.layout.command, args, { timeout: 30 * 60_000 })).stdout
  } catch (error) {
    const failed = error as { stderr?: string; message: string }
    throw new Error(`gateway ${args[0]} failed: ${(failed.stderr || failed.message).trim()}`)
  }
}

async function takeBackup(ctx: UpgradeContext, from: string): Promise<string> {
  const file = path.join(ctx.dataDir, `pre-upgrade-${from}-${new Date().toISOString().replace(/[-:]/g, '').slice(0, 15)}Z.tar`)
  await gatewayCommand(ctx, 'backup', '--to', file)
  return file
}

/** Dependencies and the compiled tree of an unpacked version, in place. */
async function prepareApp(ctx: UpgradeContext, app: string, running: string): Promise<void> {
  const runningApp = path.join(ctx.layout.releases, running)
  const sameLock = readFileSync(path.join(app, 'package-lock.json'), 'utf8') === readFileSync(path.join(runningApp, 'package-lock.json'), 'utf8')
  if (sameLock && existsSync(path.join(runningApp, 'node_modules'))) {
    // The same dependencies: no download on the restaurant's line, and no npm registry needed.
    // Hard links: nothing writes into an installed node_modules, and a Pi's card keeps one copy.
    logged(ctx, 'dependencies: the same lockfile as the running version, linked from it')
    await run('cp', ['-a', '--link', path.join(runningApp, 'node_modules'), path.join(app, 'node_modules')])
  } else {
    logged(ctx, 'dependencies: npm ci --omit=dev')
    const bin = path.dirname(ctx.layout.node)
    await run('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: app,
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
      timeout: 30 * 60_000,
    }).catch((error: { stderr?: string; message: string }) => {
      throw new ReleaseRefusedError(`npm ci failed in the new version: ${(error.stderr || error.message).trim().slice(-500)}`)
    })
  }
  await run(ctx.layout.node, ['--disable-warning=ExperimentalWarning', path.join(app, 'runtime/build/build.ts')], { cwd: app, timeout: 30 * 60_000 }).catch(
    (error: { stderr?: string; message: string }) => {
      throw new ReleaseRefusedError(`the new version does not build: ${(error.stderr || error.message).trim().slice(-500)}`)
    },
  )
}

/** Moves a journal's gateway back to its `from` version (see the header); `restart` false in the start-up check. */
async function rollBack(ctx: UpgradeContext, journal: UpgradeJournal, reason: string, restart: boolean): Promise<void> {
  logged(ctx, `rolling back to ${journal.from.version}: ${reason}`)
  step(ctx, journal, 'rolling-back', reason)
  try {
    if (restart) await ctx.service.stop()
    switchCurrent(ctx.layout, journal.from.dir)
    if (journal.from.dataFormat !== journal.to.dataFormat && journal.backup) {
      logged(ctx, `data format ${journal.to.dataFormat} differs from ${journal.from.dataFormat}: restoring the backup ${journal.backup}`)
      await gatewayCommand(ctx, 'restore', journal.backup, '--replace')
    }
    if (restart) {
      const before = await ctx.service.state()
      await ctx.service.start()
      await waitHealthy({ ...healthOf(ctx), expectVersion: journal.from.version, radioWasUp: null, restartsBefore: before.restarts })
    }
  } catch (error) {
    step(ctx, journal, 'rollback-failed', `${reason}; the rollback failed too: ${(error as Error).message}`)
    logged(ctx, `ROLLBACK FAILED: ${(error as Error).message}`)
    throw error
  }
  if (journal.kind === 'upgrade') setPrevious(ctx.layout, journal.previous)
  step(ctx, journal, 'rolled-back')
  logged(ctx, `rolled back: ${journal.from.version} runs`)
}

function healthOf(ctx: UpgradeContext) {
  return { dataDir: ctx.dataDir, service: ctx.service, limitMs: ctx.healthLimitMs, stableMs: ctx.stableMs }
}

/** Restarts into `to`, checks it, and commits or rolls back. */
async function switchAndCheck(ctx: UpgradeContext, journal: UpgradeJournal, radioWasUp: boolean | null): Promise<void> {
  step(ctx, journal, 'switching')
  if (journal.kind === 'upgrade') setPrevious(ctx.layout, journal.from.dir)
  switchCurrent(ctx.layout, journal.to.dir)
  step(ctx, journal, 'switched')
  logged(ctx, `switched to ${journal.to.version}; restarting the service`)
  const before = await ctx.service.state()
  try {
    await ctx.service.restart()
    step(ctx, journal, 'restarted')
    await waitHealthy({ ...healthOf(ctx), expectVersion: journal.to.version, radioWasUp, restartsBefore: before.restarts })
  } catch (error) {
    const reason = error instanceof UnhealthyError ? `${journal.to.version} failed its health check: ${error.message}` : (error as Error).message
    await rollBack(ctx, journal, reason, true)
    throw new UpgradeFailedError(`${journal.kind} to ${journal.to.version} failed and was rolled back to ${journal.from.version}: ${reason}`)
  }
  step(ctx, journal, 'committed')
  logged(ctx, `${journal.to.version} is healthy: committed`)
}

export class UpgradeFailedError extends Error {
  override name = 'UpgradeFailedError'
}

export async function upgrade(ctx: UpgradeContext, options: UpgradeOptions): Promise<string> {
  const lock = options.lock ?? lockUpgrades(ensureReleases(ctx))
  try {
    await recoverLocked(ctx)
    const running = runningDir(ctx)
    const from = describeVersion(ctx.layout, running)
    const incoming = privateDir(ctx.layout.incoming)
    let verified: Awaited<ReturnType<typeof verifyArchive>>
    let app: string
    try {
      const brought = await bringArchive(options.source, incoming)
      verified = await verifyArchive(brought.archive, brought.signature, ctx.layout.keys, from.version, options.allowDowngrade === true)
      logged(ctx, `${path.basename(options.source)}: version ${verified.version}, signed by key ${verified.keyId}`)
      app = await unpack(verified, path.join(incoming, 'unpacked'))
    } catch (error) {
      logged(ctx, `refused ${options.source}: ${(error as Error).message}`)
      throw error
    }
    const dir = `${verified.version}-${verified.sha256.slice(0, 12)}`
    if (dir === running) throw new ReleaseRefusedError(`this archive is the running version (${dir}): nothing to do`)
    const before = await snapshot(ctx.dataDir).catch((error: Error) => {
      throw new ReleaseRefusedError(`the running gateway must be healthy to be upgraded (${error.message}); start it, or upgrade with deploy/install.sh`)
    })
    const journal: UpgradeJournal = {
      step: 'preparing',
      kind: 'upgrade',
      from,
      to: { version: verified.version, dir, dataFormat: 1 },
      previous: linkedDir(ctx.layout.previous),
      backup: null,
      startedAt: new Date().toISOString(),
      updatedAt: '',
      reason: null,
    }
    writeJournal(ctx.layout.journal, journal)
    try {
      logged(ctx, `upgrading ${from.version} -> ${verified.version}: backup first`)
      journal.backup = await takeBackup(ctx, from.version)
      step(ctx, journal, 'backed-up')
      logged(ctx, `backup ${journal.backup}; preparing ${dir}`)
      await prepareApp(ctx, app, running)
      const target = path.join(ctx.layout.releases, dir)
      await fs.rm(target, { recursive: true, force: true })
      await fs.rename(app, target)
      await fs.chmod(target, 0o755)
      journal.to = describeVersion(ctx.layout, dir)
      step(ctx, journal, 'prepared')
    } catch (error) {
      // Nothing the box runs has changed yet: the upgrade ends here, said so in the status.
      await pruneVersions(ctx.layout)
      step(ctx, journal, 'abandoned', `${(error as Error).message}; ${from.version} kept running`)
      logged(ctx, `abandoned: ${(error as Error).message}`)
      throw error
    }
    await switchAndCheck(ctx, journal, before.radioUp)
    await pruneVersions(ctx.layout)
    await pruneBackups(ctx, journal.backup)
    return `upgraded ${from.version} -> ${verified.version}; ${from.version} kept for gateway upgrade --rollback`
  } finally {
    // What was brought in is never left behind (verified or not, installed or not).
    await fs.rm(ctx.layout.incoming, { recursive: true, force: true })
    if (!options.lock) lock.release()
  }
}

function ensureReleases(ctx: UpgradeContext): string {
  if (!existsSync(ctx.layout.releases)) throw new ReleaseRefusedError(`${ctx.layout.releases} does not exist: install with deploy/install.sh first`)
  return ctx.layout.lock
}

/** Only the newest pre-upgrade backup is kept (the one a rollback may need). */
async function pruneBackups(ctx: UpgradeContext, keep: string | null): Promise<void> {
  for (const name of await fs.readdir(ctx.dataDir)) {
    const file = path.join(ctx.dataDir, name)
    if (name.startsWith('pre-upgrade-') && file !== keep) await fs.rm(file, { force: true })
  }
}

/** `gateway upgrade --rollback`: back to the version `previous` points at. */
export async function rollbackByHand(ctx: UpgradeContext): Promise<string> {
  const lock = lockUpgrades(ensureReleases(ctx))
  try {
    await recoverLocked(ctx)
    const running = runningDir(ctx)
    const previous = linkedDir(ctx.layout.previous)
    if (!previous || !existsSync(path.join(ctx.layout.releases, previous)))
      throw new ReleaseRefusedError('no previous version is kept: nothing to roll back to')
    const last = readJournal(ctx.layout.journal)
    const journal: UpgradeJournal = {
      step: 'preparing',
      kind: 'rollback',
      from: describeVersion(ctx.layout, running),
      to: describeVersion(ctx.layout, previous),
      previous,
      // The backup taken before the upgrade to the running version, if that is what the journal holds.
      backup: last?.kind === 'upgrade' && last.step === 'committed' && last.to.dir === running ? last.backup : null,
      startedAt: new Date().toISOString(),
      updatedAt: '',
      reason: null,
    }
    if (journal.from.dataFormat !== journal.to.dataFormat) {
      if (!journal.backup)
        throw new ReleaseRefusedError(`${journal.to.version} cannot read data format ${journal.from.dataFormat} and no backup from before the upgrade is known`)
      // The older version reads only its own format: the data go back to the backup taken before the upgrade.
      writeJournal(ctx.layout.journal, journal)
      logged(ctx, `rollback to ${journal.to.version}: data format differs, restoring ${journal.backup} (changes since the upgrade are lost)`)
      await ctx.service.stop()
      switchCurrent(ctx.layout, journal.to.dir)
      step(ctx, journal, 'switched')
      await gatewayCommand(ctx, 'restore', journal.backup, '--replace')
      const before = await ctx.service.state()
      await ctx.service.start()
      await waitHealthy({ ...healthOf(ctx), expectVersion: journal.to.version, radioWasUp: null, restartsBefore: before.restarts })
      step(ctx, journal, 'committed')
    } else {
      writeJournal(ctx.layout.journal, journal)
      logged(ctx, `rollback ${journal.from.version} -> ${journal.to.version}`)
      await switchAndCheck(ctx, journal, null)
    }
    setPrevious(ctx.layout, null)
    return `rolled back ${journal.from.version} -> ${journal.to.version}`
  } finally {
    lock.release()
  }
}

/** The start-up check: finishes or undoes a half-done upgrade. Says what it did (or '' for nothing). */
export async function recover(ctx: UpgradeContext): Promise<string> {
  if (!existsSync(ctx.layout.releases)) return ''
  let lock: ReturnType<typeof lockUpgrades>
  try {
    lock = lockUpgrades(ctx.layout.lock)
  } catch {
    // An upgrade runs and restarts the service itself: not ours to touch.
    return 'an upgrade is running: left to it'
  }
  try {
    const recovered = await recoverLocked(ctx)
    // An upgrade a rollout queued whose runner was cut off: HQ hears how it ended.
    const settled = await settleTaken(ctx.layout, ctx.dataDir)
    return [recovered, settled].filter(Boolean).join('; ')
  } finally {
    lock.release()
  }
}

/** recover() for a caller that holds the upgrade lock (queued.ts). */
export const recoverHeld = (ctx: UpgradeContext) => recoverLocked(ctx)

async function recoverLocked(ctx: UpgradeContext): Promise<string> {
  const journal = readJournal(ctx.layout.journal)
  if (!journal || finalSteps.has(journal.step)) return ''
  const at = journal.step
  const keep = [journal.from.dir]
  if (at === 'preparing' || at === 'backed-up' || at === 'prepared' || at === 'switching') {
    switchCurrent(ctx.layout, journal.from.dir)
    if (journal.kind === 'upgrade') {
      setPrevious(ctx.layout, journal.previous)
      await pruneVersions(ctx.layout, keep)
    }
    await fs.rm(ctx.layout.incoming, { recursive: true, force: true })
    step(ctx, journal, 'abandoned', `interrupted at step ${at}, before the new version ran; ${journal.from.version} kept running`)
    logged(ctx, `start-up check: the ${journal.kind} to ${journal.to.version} was interrupted at ${at}: abandoned, ${journal.from.version} runs`)
    return `abandoned the ${journal.kind} to ${journal.to.version} (interrupted at ${at})`
  }
  // switched, restarted, rolling-back: whether the new version was healthy is not known.
  await rollBack(ctx, journal, journal.reason ?? `interrupted at step ${at} before its health check passed`, false)
  await fs.rm(ctx.layout.incoming, { recursive: true, force: true })
  return `rolled back the ${journal.kind} to ${journal.to.version} (interrupted at ${at})`
}
