// The gateway has two sources of local time: the system's zone files, read by its own TZif
// reader (lib/kernel/tzif.ts, zone-rules.ts), and Intl, asked only for a zone without a
// readable file (lib/kernel/time.ts). This test puts the two side by side for every zone the
// system has, by either name list (the zoneinfo directory's files and
// Intl.supportedValuesOf('timeZone')), at one instant in every month from 1970 to 2040 and at
// each transition the file stores in those years (the second before and the second of it).
//
// Every disagreement is reported with its zone and instant. It is the reader's fault, and
// fails the test, unless the C library (GNU date), reading the very same file, agrees with
// the reader: then the file and ICU's own copy of the tz database hold different data (ICU's
// copy comes with Node and follows another tzdata release), and it is listed as such.
import { execFileSync, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { parseTzif } from '../../../lib/kernel/tzif.ts'
import { defaultZoneinfoDir, isZoneFileName, ZoneRuleBook } from '../../../lib/kernel/zone-rules.ts'

const dir = process.env.TZDIR || defaultZoneinfoDir
const from = Date.UTC(1970, 0, 1) / 1000
const to = Date.UTC(2041, 0, 1) / 1000

/** One instant in each month of 1970-2040, on a day and hour that move from month to month. */
const monthly: number[] = []
for (let month = 0; month < 71 * 12; month++) {
  monthly.push(Date.UTC(1970, month, 1 + ((month * 7) % 28), (month * 5) % 24, (month * 13) % 60) / 1000)
}

/** The zone names in the directory, as the gateway would look them up (no posix/, right/ copies). */
function zoneFileNames(): string[] {
  const names: string[] = []
  const walk = (relative: string) => {
    for (const entry of readdirSync(path.join(dir, relative))) {
      const name = relative === '' ? entry : `${relative}/${entry}`
      if (statSync(path.join(dir, name)).isDirectory()) {
        if (name !== 'posix' && name !== 'right') walk(name)
      } else if (isZoneFileName(name)) names.push(name)
    }
  }
  walk('')
  return names
}

/** Intl's offset (seconds east) of a zone at an instant, or undefined when Intl does not know the zone. */
function intlOffsets(zone: string): { canonical: string; at: (seconds: number) => number } | undefined {
  let formatter: Intl.DateTimeFormat
  try {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' })
  } catch {
    return undefined
  }
  return {
    canonical: formatter.resolvedOptions().timeZone,
    at: (seconds) => {
      // "M/D/YYYY, HH:MM:SS": format() is a few times quicker than formatToParts().
      const m = /^(\d+)\/(\d+)\/(\d+), (\d+):(\d+):(\d+)$/.exec(formatter.format(seconds * 1000))
      if (!m) throw new Error(`unexpected Intl output for ${zone}: ${formatter.format(seconds * 1000)}`)
      return Date.UTC(Number(m[3]), Number(m[1]) - 1, Number(m[2]), Number(m[4]), Number(m[5]), Number(m[6])) / 1000 - seconds
    },
  }
}

/** The C library's offsets (seconds east) for a zone's file at each instant; undefined without GNU date. */
function libcOffsets(zone: string, instants: number[]): number[] | undefined {
  const run = spawnSync('date', ['-f', '-', '+%::z'], { input: instants.map((s) => `@${s}\n`).join(''), encoding: 'utf8', env: { ...process.env, TZ: `:${zone}`, TZDIR: dir, LC_ALL: 'C' } })
  if (run.status !== 0) return undefined
  return run.stdout.trim().split('\n').map((line) => {
    const [h, m, s] = line.slice(1).split(':').map(Number) as [number, number, number]
    return (line[0] === '-' ? -1 : 1) * (h * 3600 + m * 60 + s)
  })
}

function gnuDate(): boolean {
  try {
    return execFileSync('date', ['--version'], { encoding: 'utf8' }).includes('GNU')
  } catch {
    return false
  }
}

const iso = (seconds: number) => new Date(seconds * 1000).toISOString().replace('.000Z', 'Z')

interface Mismatch {
  zone: string
  aliases: string[]
  seconds: number
  ours: number
  intl: number
}

const skip = !existsSync(dir)
  ? `no zoneinfo directory at ${dir}: the gateway answers from Intl alone there`
  : !gnuDate() ? 'GNU date (coreutils) is not available to tell a reader fault from a difference of data' : false

t.test(`every zone of ${dir} and of Intl: the TZif reader and Intl agree from 1970 to 2040`, { skip }, async (t) => {
  const book = new ZoneRuleBook(dir, 10_000)
  const intlNames = Intl.supportedValuesOf('timeZone')
  const names = [...new Set([...zoneFileNames(), ...intlNames])].sort()
  // Names with the same file and the same zone in Intl give the same answers: asked once.
  const groups = new Map<string, string[]>()
  const intlOnly: string[] = []
  const fileOnly: string[] = []
  for (const name of names) {
    const file = path.join(dir, name)
    const bytes = isZoneFileName(name) && existsSync(file) ? readFileSync(file) : undefined
    const intl = intlOffsets(name)
    if (!bytes) intlOnly.push(name)
    if (!intl) fileOnly.push(name)
    const key = `${bytes ? createHash('sha256').update(bytes).digest('hex') : '-'} ${intl?.canonical ?? '-'}`
    groups.set(key, [...(groups.get(key) ?? []), name])
  }
  const mismatches: Mismatch[] = []
  let compared = 0
  let zones = 0
  for (const [zone, ...aliases] of groups.values()) {
    const rules = book.lookup(zone!)
    const intl = intlOffsets(zone!)
    if (!rules || !intl) continue
    zones++
    const transitions = parseTzif(readFileSync(path.join(dir, zone!))).transitions.filter((s) => s >= from && s < to)
    const instants = [...monthly, ...transitions.flatMap((s) => [s - 1, s])]
    for (const seconds of instants) {
      compared++
      const ours = rules.offsetSecondsAt(seconds)
      const theirs = intl.at(seconds)
      if (ours !== theirs) mismatches.push({ zone: zone!, aliases, seconds, ours, intl: theirs })
    }
  }
  t.ok(zones > 300, `${zones} zones (${names.length} names) compared at ${compared} instants`)
  t.comment(`names only Intl knows (the gateway answers them through Intl): ${intlOnly.join(', ') || 'none'}`)
  t.comment(`names only the directory has (Intl does not know them): ${fileOnly.join(', ') || 'none'}`)

  const byZone = Map.groupBy(mismatches, (m) => m.zone)
  const dataDifferences: string[] = []
  let readerFaults = 0
  let listed = 0
  for (const [zone, found] of byZone) {
    const libc = libcOffsets(zone, found.map((m) => m.seconds))
    const first = found[0]!
    const where = `${zone}${first.aliases.length ? ` (and ${first.aliases.join(', ')})` : ''}`
    const readerWrong = found.filter((m, i) => libc?.[i] !== m.ours)
    // The first few of each zone, and of all: one fault in the reader shows in hundreds of zones.
    for (const m of readerWrong.slice(0, Math.max(0, Math.min(3, 30 - listed)))) {
      listed++
      t.fail(`${where} at ${iso(m.seconds)}: the reader says ${m.ours} s, Intl ${m.intl} s, the C library reading the same file ${libc?.[found.indexOf(m)] ?? '(no answer)'} s`)
    }
    readerFaults += readerWrong.length
    if (readerWrong.length === 0) {
      dataDifferences.push(`${where}: ${found.length} instants from ${iso(first.seconds)} (reader ${first.ours} s, Intl ${first.intl} s)`)
    }
  }
  if (readerFaults > listed) t.fail(`${readerFaults} instants in all where the reader disagrees with Intl and the C library (${listed} listed)`)
  const tzdata = /^# version (\S+)/m.exec(existsSync(path.join(dir, 'tzdata.zi')) ? readFileSync(path.join(dir, 'tzdata.zi'), 'utf8') : '')?.[1] ?? 'unknown'
  t.comment(
    `${dataDifferences.length} zones where the files (tzdata ${tzdata}) and ICU (tzdata ${process.versions.tz}) hold different data, ` +
      `the C library agreeing with the reader:${dataDifferences.map((line) => `\n  ${line}`).join('') || ' none'}`,
  )
})
