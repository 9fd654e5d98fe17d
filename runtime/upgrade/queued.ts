// An upgrade a rollout asked for (issue 46). The gateway runs as its own user, sandboxed: it
// cannot switch /opt nor restart itself. Its rollout agent (runtime/workers/rollout.ts) puts
// the archive and signature it downloaded into <data dir>/rollout/ (0700, its own) and writes
// request.json there; the path unit deploy/tracker-gateway-rollout.path sees the file and runs
// `gateway upgrade --queued` as root, which is this, under the upgrade lock from start to end:
// a request an earlier run left taken settled (queued-record.ts), the request taken (recorded
// as taken in the releases dir, then removed, so it runs once), the ordinary upgrade of
// upgrade.ts from that archive (copied into incoming/ before it is verified, as always), and
// how it ended written to rollout-result.json for the agent to report, whichever version
// runs then. A runner cut off leaves the request taken: the start-up check (recover()) or the
// next run writes its result from the journal.
import { existsSync, promises as fs } from 'node:fs'
import path from 'node:path'
import { lockUpgrades, type UpgradeLock } from './lock.ts'
import { dropTaken, requestFile, rolloutDir, settleTaken, writeResult, writeTaken, type UpgradeRequest, type UpgradeResult } from './queued-record.ts'
import { recoverHeld, upgrade, type UpgradeContext, type UpgradeOptions } from './upgrade.ts'

export { readResult, readTaken, requestFile, rolloutDir, type UpgradeRequest, type UpgradeResult } from './queued-record.ts'

/** The upgrade itself (upgrade.ts's; a test may stand in for it). */
export type RunUpgrade = (ctx: UpgradeContext, options: UpgradeOptions) => Promise<string>

/** Runs the queued request, if any; says what it did. */
export async function runQueued(ctx: UpgradeContext, run: RunUpgrade = upgrade): Promise<string> {
  const file = requestFile(ctx.dataDir)
  if (!existsSync(file)) return 'no upgrade queued'
  let lock: UpgradeLock | null = null
  let busy: Error | null = null
  try {
    if (!existsSync(ctx.layout.releases)) throw new Error(`${ctx.layout.releases} does not exist: install with deploy/install.sh first`)
    lock = lockUpgrades(ctx.layout.lock)
  } catch (error) {
    // Another upgrade runs (or none can): the request is taken and fails with the reason (HQ's resume asks again).
    busy = error as Error
  }
  try {
    if (lock) {
      // What an earlier upgrade left half done (its runner killed, the box not restarted since).
      try {
        await recoverHeld(ctx)
        await settleTaken(ctx.layout, ctx.dataDir)
      } catch (error) {
        busy = error as Error
      }
    }
    let request: UpgradeRequest
    try {
      request = JSON.parse(await fs.readFile(file, 'utf8')) as UpgradeRequest
      if (lock) await writeTaken(ctx.layout, { ...request, takenAt: new Date().toISOString() })
    } finally {
      await fs.rm(file, { force: true })
    }
    const archive = path.join(rolloutDir(ctx.dataDir), path.basename(String(request.archive)))
    let ok = true
    let message: string
    try {
      if (busy) throw busy
      message = await run(ctx, { source: archive, lock: lock! })
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
    await writeResult(ctx.layout, result)
    if (lock) await dropTaken(ctx.layout)
    if (!ok) throw new Error(message)
    return message
  } finally {
    lock?.release()
  }
}
