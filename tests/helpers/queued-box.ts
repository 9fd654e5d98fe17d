// A box for `gateway upgrade --queued` without a service manager: an install layout and a data
// dir under `root`, and an UpgradeContext whose service manager must not be reached (the
// tests stop before the upgrade restarts anything, or stand in for the upgrade itself).
import { mkdirSync } from 'node:fs'
import path from 'node:path'
import { installLayout } from '../../runtime/upgrade/layout.ts'
import type { UpgradeContext } from '../../runtime/upgrade/upgrade.ts'

export function queuedBox(root: string, options: { say?: (line: string) => void; stableMs?: number } = {}) {
  const layout = installLayout(root)
  mkdirSync(layout.releases, { recursive: true })
  const dataDir = path.join(root, 'data')
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const unused = async () => {
    throw new Error('the service manager is not reached here')
  }
  const ctx: UpgradeContext = {
    layout,
    dataDir,
    service: { start: unused, stop: unused, restart: unused, state: unused },
    say: options.say ?? (() => {}),
    healthLimitMs: 1000,
    stableMs: options.stableMs ?? 10,
  }
  return { layout, dataDir, ctx }
}
