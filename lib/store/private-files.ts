// The data dir holds the webhook HMAC secrets, token hashes and the Zigbee network key: no
// other local user may read it, whatever umask started the gateway (a shell's 022 would make
// every file 0644). New files get 0600 from the umask set here; files from before (an older
// version, a restore, a hand copy) are fixed at every start.
import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs'
import path from 'node:path'

export const privateDirMode = 0o700
export const privateFileMode = 0o600

/** Every file this process creates from now on is for its owner only (process-wide). */
export function restrictNewFiles(): void {
  process.umask(0o077)
}

/**
 * Creates the data dir if needed and makes it, and everything under it, owner-only. Returns
 * the files and folders it could not change because another user owns them (a file copied in
 * as root, say): those keep their mode and the gateway starts anyway, because the data dir
 * itself is 0700 and no other user gets past it. The data dir must be the gateway's own.
 */
export function privateDataDir(dir: string, chmod: (file: string, mode: number) => void = chmodSync): string[] {
  mkdirSync(dir, { recursive: true, mode: privateDirMode })
  chmod(dir, privateDirMode)
  const foreign: string[] = []
  makePrivate(dir, chmod, foreign)
  return foreign
}

function makePrivate(dir: string, chmod: (file: string, mode: number) => void, foreign: string[]): void {
  const change = (file: string, mode: number) => {
    try {
      chmod(file, mode)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error
      foreign.push(file)
    }
  }
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name)
    // Symlinks are left alone: their targets may be anywhere (and chmod would follow them).
    if (entry.isDirectory()) {
      change(file, privateDirMode)
      makePrivate(file, chmod, foreign)
    } else if (entry.isFile() && (lstatSync(file).mode & 0o777) !== privateFileMode) change(file, privateFileMode)
  }
}
