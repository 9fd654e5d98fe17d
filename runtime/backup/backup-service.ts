// One backup at a time, by hand (`gateway backup`) or on the schedule: names the file, takes
// it (take-backup.ts), verifies it in a worker thread, and only then removes the schedule's
// own backups beyond `keep` (lib/backup/schedule.ts: never one made by hand); every result
// is kept in the BackupRecord (GET /api/v2/gateway). A backup that fails, at any step, frees
// what it took: its file (a whole one that failed verification too) and every descriptor.
import { promises as fs } from 'node:fs'
import path from 'node:path'
import type { BackupRecord, BackupResult, BackupStatusView } from '../../lib/backup/record.ts'
import { partialSuffix } from '../../lib/backup/archive-write.ts'
import { backupFileName, backupFilePrefix, beyondKeep, listScheduledBackups } from '../../lib/backup/schedule.ts'
import type { VerifyOptions } from '../../lib/backup/verify.ts'
import type { BackupManifest } from '../../lib/backup/manifest.ts'
import type { BackupDeps } from './take-backup.ts'
import { verifyInWorker } from './verify-worker.ts'

export interface RunBackupOptions {
  trigger: BackupResult['trigger']
  /** A file, or a directory to put a named file in; default the configured directory. */
  to?: string
  /** Default: the configured passphrase file's first line, if any. */
  passphrase?: string
}

export interface BackupDone {
  file: string
  bytes: number
  manifest: BackupManifest
  removed: string[]
}

/** Checks a written backup (default: verifyInWorker, the check of `gateway backup verify`). */
export type VerifyWritten = (file: string, options: VerifyOptions) => Promise<BackupManifest>

export class BackupService {
  readonly #deps: BackupDeps
  readonly #record: BackupRecord
  readonly #verify: VerifyWritten
  #current: Promise<unknown> | undefined

  constructor(deps: BackupDeps, record: BackupRecord, verify: VerifyWritten = verifyInWorker) {
    this.#deps = deps
    this.#record = record
    this.#verify = verify
  }

  /** What GET /api/v2/gateway shows as `backup`. */
  status(): BackupStatusView {
    return this.#record.view(this.#deps.settings.timezone)
  }

  /** Resolves once no backup runs (the gateway's stop waits for one, by hand or scheduled). */
  async idle(): Promise<void> {
    await this.#current?.catch(() => undefined)
  }

  run(options: RunBackupOptions): Promise<BackupDone> {
    if (this.#record.running) return Promise.reject(new Error('a backup is already running'))
    this.#record.running = true
    const current = this.#run(options)
    this.#current = current
    return current
  }

  async #run(options: RunBackupOptions): Promise<BackupDone> {
    let file: string | null = null
    try {
      const passphrase = options.passphrase ?? (await configuredPassphrase(this.#deps.config.backup.passphraseFile))
      file = await this.#target(options.to, passphrase !== undefined, options.trigger === 'schedule')
      await directoryExists(path.dirname(file))
      await removeStalePartials(path.dirname(file), backupFilePrefix(this.#deps.identity.deviceId))
      // Taking one needs the archive writer and the history copy: imported at the first backup, not at start.
      const { takeBackup } = await import('./take-backup.ts')
      const written = await takeBackup(this.#deps, { target: file, passphrase })
      await this.#verify(file, { passphrase })
      const removed = options.trigger === 'schedule' ? await this.#retain(file) : []
      await this.#save({ at: this.#deps.clock.now(), trigger: options.trigger, ok: true, file, bytes: written.bytes, reason: null })
      return { file, bytes: written.bytes, manifest: written.manifest, removed }
    } catch (error) {
      const reason = (error as Error).message
      this.#deps.log.error({ err: error, file }, 'backup failed')
      // A file written but not verified (or not synced into its directory) is no backup: it
      // would take a good one's place among those kept, and its space. #target never names a
      // file that was there before, so whatever is there now is this run's.
      if (file) await fs.rm(file, { force: true }).catch((cause: unknown) => this.#deps.log.warn({ err: cause, file }, 'the unverified backup could not be removed'))
      await this.#save({ at: this.#deps.clock.now(), trigger: options.trigger, ok: false, file, bytes: null, reason })
      throw error
    } finally {
      this.#record.running = false
    }
  }

  async #target(to: string | undefined, encrypted: boolean, scheduled: boolean): Promise<string> {
    const named = () => backupFileName(this.#deps.identity.deviceId, this.#deps.clock.now(), encrypted, scheduled && to === undefined)
    const directory = this.#deps.config.backup.directory
    let file: string
    if (to === undefined) {
      if (directory === null) throw new Error('no backup directory configured (gateway.config.json "backup.directory"); give --to FILE')
      file = path.join(directory, named())
    } else {
      const stat = await fs.stat(to).catch(() => undefined)
      file = stat?.isDirectory() ? path.join(to, named()) : to
    }
    if (await fs.stat(file).then(() => true, () => false)) throw new Error(`${file} exists; a backup never overwrites a file`)
    return file
  }

  /** The schedule's own backups beyond `keep`, oldest first, once the new one is verified. */
  async #retain(newest: string): Promise<string[]> {
    const dir = path.dirname(newest)
    const old = beyondKeep(await listScheduledBackups(dir, this.#deps.identity.deviceId), this.#deps.config.backup.keep, newest)
    for (const file of old) await fs.rm(file, { force: true })
    if (old.length) this.#deps.log.info({ removed: old.map((file) => path.basename(file)) }, 'old backups removed')
    return old
  }

  async #save(result: BackupResult): Promise<void> {
    // A record that cannot be written (full data disk) must not hide the backup's own outcome.
    await this.#record.save(result).catch((error: unknown) => this.#deps.log.warn({ err: error }, 'the backup result could not be recorded'))
  }
}

/** The first line of the passphrase file (undefined when none is configured). */
export async function configuredPassphrase(file: string | null): Promise<string | undefined> {
  if (file === null) return undefined
  return readPassphraseFile(file)
}

export async function readPassphraseFile(file: string): Promise<string> {
  const text = await fs.readFile(file, 'utf8').catch((error: Error) => {
    throw new Error(`cannot read the passphrase file ${file}: ${error.message}`)
  })
  const passphrase = text.split(/\r?\n/)[0] ?? ''
  if (passphrase === '') throw new Error(`the passphrase file ${file} is empty`)
  return passphrase
}

/** A missing target directory said plainly (an unmounted stick is the usual reason). */
async function directoryExists(dir: string): Promise<void> {
  const stat = await fs.stat(dir).catch(() => undefined)
  if (!stat?.isDirectory()) throw new Error(`the backup directory ${dir} does not exist (is the stick or share mounted?)`)
}

/** `.partial` files a killed or failed backup of this gateway left behind (never a whole backup). */
async function removeStalePartials(dir: string, prefix: string): Promise<void> {
  const names = await fs.readdir(dir).catch(() => [] as string[])
  for (const name of names) {
    // SQLite's side files of the history copy (`…partial-journal`) go too.
    if (name.includes(partialSuffix) && (name.startsWith(prefix) || name.startsWith(`.${prefix}`))) await fs.rm(path.join(dir, name), { force: true })
  }
}
