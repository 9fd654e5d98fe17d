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

/** Creates the data dir if needed and makes it, and everything under it, owner-only. */
export function privateDataDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: privateDirMode })
  makePrivate(dir)
}

function makePrivate(dir: string): void {
  chmodSync(dir, privateDirMode)
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name)
    // Symlinks are left alone: their targets may be anywhere (and chmod would follow them).
    if (entry.isDirectory()) makePrivate(file)
    else if (entry.isFile() && (lstatSync(file).mode & 0o777) !== privateFileMode) chmodSync(file, privateFileMode)
  }
}
