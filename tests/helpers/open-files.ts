// What this process holds open under a directory (Linux: /proc/self/fd), e.g. a backup's
// removed copy still held ("… (deleted)"), which keeps its space taken until the process ends.
import { readdirSync, readlinkSync } from 'node:fs'
import path from 'node:path'

export function openFilesUnder(dir: string): string[] {
  const root = path.resolve(dir)
  const open: string[] = []
  for (const fd of readdirSync('/proc/self/fd')) {
    let target: string
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`)
    } catch {
      continue // closed meanwhile (the listing's own descriptor)
    }
    if (target === root || target.startsWith(root + path.sep)) open.push(target)
  }
  return open
}
