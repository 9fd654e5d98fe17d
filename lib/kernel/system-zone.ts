// The host's time zone by name, the default of the gateway's timezone setting. Asked of the
// system's own configuration, in the order the C library and systemd use it, so that ICU
// is not loaded just to learn it (docs/architecture.md, "Local time"): TZ ("Europe/Berlin"
// or ":Europe/Berlin"), else the zone /etc/localtime links to, else /etc/timezone (Debian),
// else what Intl reports, else UTC. A source naming something that is not a valid zone is
// passed over for the next one.
import { readFileSync, readlinkSync } from 'node:fs'

export interface SystemZoneSources {
  env: NodeJS.ProcessEnv
  /** The link whose target names the zone (…/zoneinfo/Area/City). */
  localtime: string
  /** A file holding a zone name (Debian's /etc/timezone). */
  timezoneFile: string
  /** The last resort: loads ICU, so it is only asked when every file above failed. */
  intl: () => string | undefined
}

export const hostZoneSources: SystemZoneSources = {
  env: process.env,
  localtime: '/etc/localtime',
  timezoneFile: '/etc/timezone',
  intl: () => Intl.DateTimeFormat().resolvedOptions().timeZone,
}

/**
 * The zone a TZ value or a zone file's path names: "Europe/Berlin" from ":Europe/Berlin",
 * "/usr/share/zoneinfo/Europe/Berlin", "../usr/share/zoneinfo/posix/Europe/Berlin".
 */
export function zoneNameOf(value: string): string {
  let name = value.trim().replace(/^:/, '')
  const inZoneinfo = name.lastIndexOf('zoneinfo/')
  if (inZoneinfo >= 0) name = name.slice(inZoneinfo + 'zoneinfo/'.length).replace(/^(?:posix|right)\//, '')
  return name
}

/**
 * The zone files' names for UTC, which Intl (the previous source of the default) reports as
 * "UTC": a UTC machine's /etc/localtime links to Etc/UTC. TZ is taken as it is written, as before.
 */
const utcNames = new Set([
  'Etc/UTC',
  'Etc/UCT',
  'UCT',
  'Universal',
  'Etc/Universal',
  'Zulu',
  'Etc/Zulu',
  'Etc/GMT',
  'GMT',
  'Etc/GMT0',
  'GMT0',
  'Etc/GMT+0',
  'Etc/GMT-0',
  'Greenwich',
  'Etc/Greenwich',
])

function attempt(read: () => string | undefined): string | undefined {
  try {
    return read()
  } catch {
    return undefined // no such file, not a link, unreadable: try the next source
  }
}

export function systemZoneName(isValid: (zone: string) => boolean, sources: SystemZoneSources = hostZoneSources): string {
  const candidates: Array<{ read: () => string | undefined; fromFile: boolean }> = [
    { read: () => sources.env.TZ || undefined, fromFile: false },
    { read: () => readlinkSync(sources.localtime), fromFile: true },
    { read: () => readFileSync(sources.timezoneFile, 'utf8'), fromFile: true },
  ]
  for (const { read, fromFile } of candidates) {
    const value = attempt(read)
    if (value === undefined) continue
    const name = zoneNameOf(value)
    if (name !== '' && isValid(name)) return fromFile && utcNames.has(name) ? 'UTC' : name
  }
  const reported = attempt(sources.intl)
  return reported && isValid(reported) ? reported : 'UTC'
}
