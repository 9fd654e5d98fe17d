// The installed versions: which one `current` and `previous` point at, switching `current`
// atomically (a new symlink renamed over the old one), and removing the ones no longer kept.
import { promises as fs, readFileSync, readlinkSync, renameSync, rmSync, symlinkSync } from 'node:fs'
import path from 'node:path'
import type { InstalledVersion } from './journal.ts'
import { syncFile } from './journal.ts'
import type { InstallLayout } from './layout.ts'

/** The version directory a link points at (its name under the releases dir), or null. */
export function linkedDir(link: string): string | null {
  try {
    return path.basename(readlinkSync(link))
  } catch {
    return null
  }
}

export function describeVersion(layout: InstallLayout, dir: string): InstalledVersion {
  const pkg = JSON.parse(readFileSync(path.join(layout.releases, dir, 'package.json'), 'utf8')) as {
    version: string
    trackerGateway?: { dataFormat?: number }
  }
  return { version: pkg.version, dir, dataFormat: pkg.trackerGateway?.dataFormat ?? 1 }
}

function replaceLink(link: string, target: string): void {
  const temporary = `${link}.switching`
  rmSync(temporary, { force: true })
  symlinkSync(target, temporary)
  renameSync(temporary, link)
  syncFile(path.dirname(link))
}

/** Points `current` at a version directory: one rename, so a power cut leaves the old link or the new one. */
export function switchCurrent(layout: InstallLayout, dir: string): void {
  replaceLink(layout.current, path.join(path.basename(layout.releases), dir))
}

export function setPrevious(layout: InstallLayout, dir: string | null): void {
  if (dir === null) rmSync(layout.previous, { force: true })
  else replaceLink(layout.previous, dir)
}

/** Removes every version directory but the ones `current` and `previous` point at (and `keep`). */
export async function pruneVersions(layout: InstallLayout, keep: string[] = []): Promise<string[]> {
  const kept = new Set([linkedDir(layout.current), linkedDir(layout.previous), ...keep])
  const removed: string[] = []
  for (const entry of await fs.readdir(layout.releases, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === 'incoming' || kept.has(entry.name)) continue
    await fs.rm(path.join(layout.releases, entry.name), { recursive: true, force: true })
    removed.push(entry.name)
  }
  return removed
}
