// Running gateways of this user, so the `gateway` command finds one that was started with
// another data dir (GATEWAY_DATA_DIR in another shell, --data-dir) than the one it resolves
// itself. Each gateway writes one small file, named after its data dir, into a per-user
// folder of the temp dir while it runs; a gateway killed by SIGKILL leaves its file behind,
// so readers keep only entries whose process is alive and whose control socket exists.
// Under systemd (PrivateTmp) the folder is the unit's own: the installed `gateway` command
// names its config instead (deploy/install.sh).
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { controlSocketPath } from '../control/control.ts'
import { readDataDirOwner } from './data-dir-lock.ts'

export interface RegisteredGateway {
  pid: number
  port: number
  dataDir: string
  startedAt: number
}

export function registryDir(base = tmpdir()): string {
  return path.join(base, `tracker-gateway-${process.getuid?.() ?? 'user'}`)
}

function entryFile(dir: string, dataDir: string): string {
  return path.join(dir, `${createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 16)}.json`)
}

/** Adds this gateway; returns the function that removes it again. */
export function registerGateway(entry: RegisteredGateway, dir = registryDir()): () => void {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const file = entryFile(dir, entry.dataDir)
  const temporary = `${file}.${process.pid}.tmp`
  writeFileSync(temporary, `${JSON.stringify(entry)}\n`, { mode: 0o600 })
  renameSync(temporary, file)
  return () => {
    // Only our own entry: a later gateway on the same data dir may have replaced it.
    if (readEntry(file)?.pid === entry.pid) rmSync(file, { force: true })
  }
}

function readEntry(file: string): RegisteredGateway | undefined {
  try {
    const entry = JSON.parse(readFileSync(file, 'utf8')) as RegisteredGateway
    return typeof entry.pid === 'number' && typeof entry.dataDir === 'string' ? entry : undefined
  } catch {
    return undefined
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: alive, but another user's.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** A gateway runs on this data dir: its lock's owner is alive and its control socket is there. */
export function gatewayRunsOn(dataDir: string): boolean {
  const owner = readDataDirOwner(dataDir)
  return owner !== undefined && isAlive(owner.pid) && existsSync(controlSocketPath(dataDir))
}

/** The gateways of this user that run now, oldest first; entries left by killed ones are removed. */
export function runningGateways(dir = registryDir()): RegisteredGateway[] {
  let names: string[]
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.json'))
  } catch {
    return []
  }
  const running: RegisteredGateway[] = []
  for (const name of names) {
    const file = path.join(dir, name)
    const entry = readEntry(file)
    if (entry && isAlive(entry.pid) && existsSync(controlSocketPath(entry.dataDir))) running.push(entry)
    else if (entry && !isAlive(entry.pid)) rmSync(file, { force: true })
  }
  return running.sort((a, b) => a.startedAt - b.startedAt)
}
