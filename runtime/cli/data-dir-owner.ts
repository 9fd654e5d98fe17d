// Commands an installer runs with sudo at the box (`gateway radio probe`) write into the data
// dir themselves: the settings store, the Zigbee network's credentials, herdsman's database and
// coordinator backup. Left owned by root, the service's own user could no longer read its
// network key, and the gateway would not start. So whatever such a command created or
// rewrote is handed back to the data dir's owner.
import { lchownSync, lstatSync, readdirSync } from 'node:fs'
import path from 'node:path'

export interface OwnershipOps {
  /** The effective user of this process (0: root). */
  uid(): number
  lstat(file: string): { uid: number; gid: number; isDirectory(): boolean; isSymbolicLink(): boolean }
  readdir(dir: string): string[]
  lchown(file: string, uid: number, gid: number): void
}

const systemOps: OwnershipOps = {
  uid: () => process.geteuid?.() ?? -1,
  lstat: (file) => lstatSync(file),
  readdir: (dir) => readdirSync(dir),
  lchown: (file, uid, gid) => lchownSync(file, uid, gid),
}

/**
 * Run as root: every entry under `dataDir` not owned by the data dir's owner is given to it
 * (symbolic links themselves, never what they point to). Returns the paths changed. Nothing
 * is done when not root, or when root owns the data dir.
 */
export function giveToDataDirOwner(dataDir: string, ops: OwnershipOps = systemOps): string[] {
  if (ops.uid() !== 0) return []
  let owner: { uid: number; gid: number }
  try {
    owner = ops.lstat(dataDir)
  } catch {
    return []
  }
  if (owner.uid === 0) return []
  const changed: string[] = []
  const visit = (dir: string) => {
    for (const name of ops.readdir(dir)) {
      const file = path.join(dir, name)
      let entry: ReturnType<OwnershipOps['lstat']>
      try {
        entry = ops.lstat(file)
      } catch {
        continue // gone meanwhile
      }
      if (entry.uid !== owner.uid || entry.gid !== owner.gid) {
        ops.lchown(file, owner.uid, owner.gid)
        changed.push(file)
      }
      if (entry.isDirectory() && !entry.isSymbolicLink()) visit(file)
    }
  }
  visit(dataDir)
  return changed
}
