// A real PostgreSQL for tests: initdb into a fresh temporary directory, pg_ctl on a free
// loopback port with its unix socket in that directory, trust authentication for the
// superuser `postgres`. PostgreSQL refuses to run as root, so when the tests run as root the
// server runs as the `postgres` user Debian's package creates (runuser), and its directory is
// a new mkdtemp under os.tmpdir() owned by that user: the checkout may sit in a 0700
// directory the server could not enter. restart() keeps the data and the port.
import { execFileSync, spawnSync } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { freePort } from '../../bench/free-port.ts'
import { postgresDep, requireExecutable } from './system-deps.ts'

export interface PostgresServer {
  port: number
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string
  dataDir: string
  /** A fresh database on this server; its URL. */
  createDatabase(name: string): Promise<string>
  /** The path of one of the server's programs (pg_dump, pg_restore, ...), from its bin dir. */
  program(name: string): string
  /** Runs SQL through psql (-At): one line per row, columns split by |. */
  psql(database: string, sql: string): string
  start(): Promise<void>
  /** pg_ctl stop (fast: open sessions are cut, like a restart by an operator). */
  stop(): Promise<void>
  restart(): Promise<void>
  /** Stops the server and removes its directory. */
  destroy(): Promise<void>
}

export interface PostgresOptions {
  /**
   * Durability off (fsync, synchronous_commit, full_page_writes): a test checks what is
   * committed, not that the disk keeps it through a power cut, and runs several times faster.
   * The benchmark keeps the defaults.
   */
  fast?: boolean
  /** Extra `name=value` settings. */
  settings?: Record<string, string | number>
}

const runsAsRoot = process.getuid?.() === 0

interface ServerUser {
  uid: number
  gid: number
  name: string
}

function serverUser(): ServerUser | undefined {
  if (!runsAsRoot) return undefined
  const lookup = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim())
  try {
    return { uid: lookup('-u'), gid: lookup('-g'), name: 'postgres' }
  } catch {
    throw new Error("PostgreSQL refuses to run as root and there is no `postgres` user: install Debian's postgresql package or run the tests as another user")
  }
}

// util-linux's runuser is in /usr/sbin or /sbin, which a PATH made for a user may leave out.
const runuser = () => ['/usr/sbin/runuser', '/sbin/runuser'].find((file) => existsSync(file)) ?? 'runuser'

function run(bin: string, user: ServerUser | undefined, args: string[], options: { allowFail?: boolean } = {}): string {
  const [command, argv] = user ? [runuser(), ['-u', user.name, '--', bin, ...args]] : [bin, args]
  const result = spawnSync(command, argv, { encoding: 'utf8', cwd: os.tmpdir() })
  if (result.status !== 0 && !options.allowFail) {
    const why = result.error ? `${command}: ${result.error.message}` : `${result.status ?? result.signal}: ${result.stderr || result.stdout}`
    throw new Error(`${path.basename(bin)} ${args.join(' ')} failed (${why})`)
  }
  return result.stdout
}

export async function startPostgres(options: PostgresOptions = {}): Promise<PostgresServer> {
  // pg_ctl may be a link on PATH; its siblings (initdb, postgres, psql) are beside the real file.
  const binDir = path.dirname(realpathSync(requireExecutable(postgresDep)))
  const bin = (name: string) => path.join(binDir, name)
  const user = serverUser()
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tg-postgres-'))
  if (user) chownSync(dir, user.uid, user.gid)
  const dataDir = path.join(dir, 'data')
  run(bin('initdb'), user, ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync'])
  const port = await freePort()
  const settings: Record<string, string | number> = {
    listen_addresses: "'127.0.0.1'",
    port,
    unix_socket_directories: `'${dir}'`,
    max_connections: 100,
    ...(options.fast ? { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' } : {}),
    ...options.settings,
  }
  const postgresOptions = Object.entries(settings)
    .map(([name, value]) => `-c ${name}=${value}`)
    .join(' ')
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`
  const psqlBin = bin('psql')
  const server: PostgresServer = {
    port,
    url,
    dataDir,
    async createDatabase(name) {
      server.psql('postgres', `CREATE DATABASE "${name}"`)
      return `postgres://postgres@127.0.0.1:${port}/${name}`
    },
    program: bin,
    psql(database, sql) {
      return execFileSync(psqlBin, ['-h', dir, '-p', String(port), '-U', 'postgres', '-d', database, '-At', '-v', 'ON_ERROR_STOP=1', '-c', sql], {
        encoding: 'utf8',
      }).trim()
    },
    async start() {
      run(bin('pg_ctl'), user, ['-D', dataDir, '-l', path.join(dir, 'server.log'), '-o', postgresOptions, '-w', '-t', '60', 'start'])
    },
    async stop() {
      run(bin('pg_ctl'), user, ['-D', dataDir, '-m', 'fast', '-w', '-t', '60', 'stop'], { allowFail: true })
    },
    async restart() {
      await server.stop()
      await server.start()
    },
    async destroy() {
      run(bin('pg_ctl'), user, ['-D', dataDir, '-m', 'immediate', '-w', '-t', '60', 'stop'], { allowFail: true })
      rmSync(dir, { recursive: true, force: true })
    },
  }
  try {
    await server.start()
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
  return server
}
