// The zone-file reader against the machine's own tzdata: every zone file in the zoneinfo
// directory, instants from 1900 to 2100 (every stored transition and the seconds around it,
// a grid across the two centuries, and every day of a year long after the files' last
// transitions, where only the footer rule answers, with every quarter hour around its
// changes), compared with two other readers:
// - the C library (GNU date), which reads the very same files: it must agree everywhere;
// - Intl (ICU's own copy of the tz database, the gateway's previous source): it must agree
//   wherever its data is the same as the machine's. ICU's copy is of another tzdata release
//   and merges zones the machine may keep apart (Debian builds with IANA's "backzone"
//   histories before 1970), so a disagreement with Intl is accepted only where the C
//   library, reading the file, agrees with the gateway; such instants are counted.
import t from 'tap'
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { defaultZoneinfoDir, ZoneRuleBook } from '../../../lib/kernel/zone-rules.ts'
import { parseTzif } from '../../../lib/kernel/tzif.ts'

const dir = process.env.TZDIR || defaultZoneinfoDir

function gnuDate(): boolean {
  try {
    return execFileSync('date', ['--version'], { encoding: 'utf8' }).includes('GNU')
  } catch {
    return false
  }
}

/** Every file under the directory, as zone names, without the "posix/" and "right/" copies. */
function zoneFileNames(): string[] {
  const names: string[] = []
  const walk = (relative: string) => {
    for (const entry of readdirSync(path.join(dir, relative))) {
      const name = relative === '' ? entry : `${relative}/${entry}`
      if (statSync(path.join(dir, name)).isDirectory()) {
        if (name !== 'posix' && name !== 'right') walk(name)
      } else names.push(name)
    }
  }
  walk('')
  return names.sort()
}

/** The C library's offsets (seconds east) for the zone at each instant, one `date` for the lot. */
function libcOffsets(zone: string, instants: number[]): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn('date', ['-f', '-', '+%::z'], { env: { ...process.env, TZ: `:${zone}`, TZDIR: dir, LC_ALL: 'C' } })
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk))
    child.on('error', reject)
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`date for ${zone} exited ${code}`))
      resolve(
        out
          .trim()
          .split('\n')
          .map((line) => {
            const [h, m, s] = line.slice(1).split(':').map(Number) as [number, number, number]
            return (line[0] === '-' ? -1 : 1) * (h * 3600 + m * 60 + s)
          }),
      )
    })
    child.stdin.end(`${instants.map((s) => `@${s}`).join('\n')}\n`)
  })
}

function intlOffsets(zone: string): ((seconds: number) => number) | undefined {
  let formatter: Intl.DateTimeFormat
  try {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    })
  } catch {
    return undefined
  }
  return (seconds) => {
    const p: Record<string, number> = {}
    for (const part of formatter.formatToParts(new Date(seconds * 1000))) if (part.type !== 'literal') p[part.type] = Number(part.value)
    return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!) / 1000 - seconds
  }
}

const from = Date.UTC(1900, 0, 1) / 1000
const to = Date.UTC(2100, 0, 1) / 1000

/** A grid across the two centuries, and each stored transition with the seconds and hours around it. */
function instantsFor(transitions: number[]): number[] {
  const instants = new Set<number>()
  for (let s = from; s < to; s += 97 * 86_400 + 3607) instants.add(s)
  for (const time of transitions) {
    if (time < from || time >= to) continue
    for (const delta of [-3600, -1, 0, 1, 3600]) instants.add(time + delta)
  }
  instants.add(to - 1)
  return [...instants]
}

/** 2077 day by day, decades after the last transition any file stores: the footer's DST rule alone answers. */
const footerDays: number[] = []
for (let s = Date.UTC(2077, 0, 1) / 1000; s < Date.UTC(2078, 0, 1) / 1000; s += 86_400) footerDays.push(s)

/** Every quarter hour of the two days around each day-to-day change the C library saw in the footer year. */
function aroundChanges(libcDays: number[]): number[] {
  const instants: number[] = []
  for (let d = 0; d + 1 < libcDays.length; d++) {
    if (libcDays[d] === libcDays[d + 1]) continue
    for (let s = footerDays[d]! - 86_400; s < footerDays[d + 1]! + 86_400; s += 900) instants.push(s)
  }
  return instants
}

const skip = !existsSync(dir)
  ? `no zoneinfo directory at ${dir} (tzdata not installed): the gateway falls back to Intl there`
  : !gnuDate()
    ? 'GNU date (coreutils) is not available to read the zone files a second way'
    : false

t.test(`every zone file in ${dir} agrees with the C library and, where the data match, with Intl`, { skip }, async (t) => {
  const book = new ZoneRuleBook(dir, 10_000)
  const names = zoneFileNames()
  let zones = 0
  let checks = 0
  const intlDifferences = new Map<string, number>()
  const check = async (name: string) => {
    const rules = book.lookup(name)
    const intl = intlOffsets(name)
    if (intl && !rules) t.fail(`${name}: Intl knows it but its file was not read`)
    if (!rules) return
    if (!intl) t.comment(`${name}: a zone file Intl does not know (kept valid: the files are the source)`)
    zones++
    const data = parseTzif(readFileSync(path.join(dir, name)))
    const instants = instantsFor(data.transitions)
    // The footer year goes to the C library only: Intl is too slow to ask that often for 600 zones.
    const compareWithIntl = instants.length
    if (data.footer.includes(',')) {
      instants.push(...footerDays)
      instants.push(...aroundChanges(await libcOffsets(name, footerDays)))
    }
    const libc = await libcOffsets(name, instants)
    if (libc.length !== instants.length) t.fail(`${name}: date answered ${libc.length} of ${instants.length} lines`)
    let wrong = 0
    instants.forEach((seconds, i) => {
      checks++
      const ours = rules.offsetSecondsAt(seconds)
      if (ours !== libc[i] && wrong++ < 3) t.fail(`${name} at ${new Date(seconds * 1000).toISOString()}: ${ours} s, the C library ${libc[i]} s`)
      if (intl && i < compareWithIntl && intl(seconds) !== ours) intlDifferences.set(name, (intlDifferences.get(name) ?? 0) + 1)
    })
  }
  // A few zones at a time: the time goes into starting `date`, not into computing.
  const queue = [...names]
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let name = queue.shift(); name !== undefined; name = queue.shift()) await check(name)
    }),
  )
  t.ok(zones > 300, `${zones} zones read`)
  t.comment(`${checks} instants in ${zones} zones agree with the C library`)
  const tzdataVersion =
    /^# version (\S+)/m.exec(existsSync(path.join(dir, 'tzdata.zi')) ? readFileSync(path.join(dir, 'tzdata.zi'), 'utf8') : '')?.[1] ?? 'unknown'
  t.comment(
    `${[...intlDifferences.values()].reduce((a, b) => a + b, 0)} instants in ${intlDifferences.size} zones differ from Intl ` +
      `(ICU's tzdata ${process.versions.tz}, the machine's ${tzdataVersion}): ${[...intlDifferences.keys()].sort().join(', ') || 'none'}`,
  )
})
