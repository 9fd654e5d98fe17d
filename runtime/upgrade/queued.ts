// An upgrade a rollout asked for (issue 46). The gateway runs as its own user, sandboxed: it
// cannot switch /opt nor restart itself. Its rollout agent (runtime/workers/rollout.ts) puts
// the archive and signature it downloaded into <data dir>/rollout/ (0700, its own) and writes
// request.json there; the path unit deploy/tracker-gateway-rollout.path sees the file and runs
// `gateway upgrade --queued` as root, which is this: the request taken (removed, so it runs
// once), the ordinary upgrade of upgrade.ts from that archive (copied into incoming/ before it
// is verified, as always), and how it ended written to rollout-result.json for the agent to
// report, whichever version runs then.
import { existsSync, promises as fs } from 'node:fs'
import path from 'node:path'
import { upgrade, type UpgradeContext } from './upgrade.ts'

export interface UpgradeRequest {
  rolloutId: number
  attempt: number
  version: string
  /** The archive's file name in the rollout dir (its .sig beside it). */
  archive: string
  requestedAt: string
}

export interface UpgradeResult {
  rolloutId: number
  attempt: number
  version: string
  ok: boolean
  message: string
  at: string
}

export const rolloutDir = (dataDir: string) => path.join(dataDir, 'rollout')
export const requestFile = (dataDir: string) => path.join(rolloutDir(dataDir), 'request.json')

/** Runs the queued request, if any; says what it did. */
export async function runQueued(ctx: UpgradeContext): Promise<string> {
  const file = requestFile(ctx.dataDir)
  if (!existsSync(file)) return 'no upgrade queued'
  let request: UpgradeRequest
  try {
    request = JSON.parse(await fs.readFile(file, 'utf8')) as UpgradeRequest
  } finally {
    await fs.rm(file, { force: true })
  }
  const archive = path.join(rolloutDir(ctx.dataDir), path.basename(String(request.archive)))
  let ok = true
  let message: string
  try {
    message = await upgrade(ctx, { source: archive })
  } catch (error) {
    ok = false
    message = (error as Error).message
  }
  const result: UpgradeResult = {
    rolloutId: request.rolloutId,
    attempt: request.attempt,
    version: request.version,
    ok,
    message,
    at: new Date().toISOString(),
  }
  await fs.writeFile(`${ctx.layout.rolloutResult}.partial`, `${JSON.stringify(result)}\n`, { mode: 0o644 })
  await fs.rename(`${ctx.layout.rolloutResult}.partial`, ctx.layout.rolloutResult)
  if (!ok) throw new Error(message)
  return message
}

export async function readResult(file: string): Promise<UpgradeResult | null> {
  try {
    return JSON.parse(await fs.readFile(file, 'utf8')) as UpgradeResult
  } catch {
    return null
  }
}
