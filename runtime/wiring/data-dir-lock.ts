// One gateway per data dir. Two gateways on one data dir both append to and compact the same
// NeDB files, and acknowledged writes of one are lost (issue 19). The lock is an SQLite
// database (`gateway.lock`) opened in exclusive locking mode: SQLite takes a POSIX record
// lock (fcntl) on it and keeps it until the connection closes. The kernel drops such a lock
// when the process ends however it ends (SIGKILL, power cut), so a stale file never blocks
// a restart, and taking it is atomic, so two gateways starting together cannot both win.
// SQLite also refuses a second connection within the same process. Node has no flock();
// node:sqlite is built in, so this needs nothing native. docs/architecture.md, "One gateway
// per data dir", compares the other ways considered.
import { takeExclusiveLock } from '../../lib/store/exclusive-lock.ts'
import { accessSync, chmodSync, constants, mkdirSync, readFileSync, renameSync, rmSync, statSync, type Stats, writeFileSync } from 'node:fs'
import path from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { ConfigError } from '../../lib/config.ts'

export const lockFileName = 'gateway.lock'
/** Who holds the lock: written by the holder only, read by a gateway that is refused. */
export const ownerFileName = 'gateway.owner.json'

export interface DataDirOwner {
  pid: number
  /** The HTTP port, once listening. */
  port: number | null
  /** The address it listens on (0.0.0.0: every one). */
  host: string | null
  startedAt: number
}

export interface DataDirLock {
  readonly dataDir: string
  /** Records the HTTP port for a gateway that is refused (and `gateway status`). */
  setPort(port: number, host: string): void
  release(): void
}

/** Creates the data dir (0700) if missing; a file in its place, or no write access, is a configuration error. */
export function prepareDataDir(dataDir: string): void {
  let info: Stats
  try {
    info = statSync(dataDir)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOTDIR') throw new ConfigError(`data dir ${dataDir}: a part of the path is a file, not a directory`)
    if (code !== 'ENOENT') throw new ConfigError(`data dir ${dataDir}: ${code}`)
    try {
      mkdirSync(dataDir, { recursive: true, mode: 0o700 })
    } catch (mkdirError) {
      throw new ConfigError(`cannot create data dir ${dataDir}: ${(mkdirError as NodeJS.ErrnoException).code} (${whoAmI()})`)
    }
    return
  }
  if (!info.isDirectory()) throw new ConfigError(`data dir ${dataDir} is a file, not a directory`)
  try {
    accessSync(dataDir, constants.W_OK | constants.X_OK)
  } catch {
    throw new ConfigError(`data dir ${dataDir} is not writable (${whoAmI()}); owner uid ${info.uid}, mode ${(info.mode & 0o777).toString(8)}`)
  }
}

function whoAmI(): string {
  return `running as uid ${process.getuid?.() ?? '?'}`
}

export function readDataDirOwner(dataDir: string): DataDirOwner | undefined {
  try {
    return JSON.parse(readFileSync(path.join(dataDir, ownerFileName), 'utf8')) as DataDirOwner
  } catch {
    return undefined
  }
}

/**
 * Best effort: the owner file only names the holder for a gateway that is refused. A full
 * disk must not stop start-up (the gateway then serves reads and refuses writes with -37);
 * a refused gateway then says "another gateway" instead of naming the PID.
 */
function writeOwner(dataDir: string, owner: DataDirOwner): void {
  const file = path.join(dataDir, ownerFileName)
  const temporary = `${file}.${process.pid}.tmp`
  try {
    writeFileSync(temporary, `${JSON.stringify(owner)}\n`, { mode: 0o600 })
    renameSync(temporary, file)
  } catch {
    rmSync(temporary, { force: true })
  }
}

/** Says who holds a data dir that could not be locked. */
export function inUseMessage(dataDir: string, owner: DataDirOwner | undefined): string {
  const who = owner ? `the gateway with PID ${owner.pid}${owner.port !== null ? ` on port ${owner.port}` : ' (still starting)'}` : 'another gateway'
  return `data dir ${dataDir} is in use by ${who}; one gateway per data dir (see \`gateway status --data-dir ${dataDir}\`; give this one another --data-dir)`
}

/** Takes the data dir's lock for the life of this process, or throws a ConfigError naming the holder. */
export function lockDataDir(dataDir: string): DataDirLock {
  prepareDataDir(dataDir)
  const file = path.join(dataDir, lockFileName)
  let db: DatabaseSync
  try {
    db = new DatabaseSync(file, { timeout: 0 })
  } catch (error) {
    throw new ConfigError(`cannot open ${file}: ${(error as Error).message}`)
  }
  let taken: boolean
  try {
    taken = takeExclusiveLock(db)
  } catch (error) {
    throw new ConfigError(`cannot lock ${file}: ${(error as Error).message}`)
  }
  if (!taken) throw new ConfigError(inUseMessage(dataDir, readDataDirOwner(dataDir)))
  chmodSync(file, 0o600)
  const owner: DataDirOwner = { pid: process.pid, port: null, host: null, startedAt: Date.now() }
  writeOwner(dataDir, owner)
  let released = false
  return {
    dataDir,
    setPort(port, host) {
      owner.port = port
      owner.host = host
      writeOwner(dataDir, owner)
    },
    release() {
      if (released) return
      released = true
      db.close()
    },
  }
}
