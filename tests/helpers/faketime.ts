// A real gateway process whose wall clock a test moves while it runs: Debian's libfaketime
// (package `faketime`, which brings `libfaketime`), preloaded in its multi-threaded build,
// reads the offset from a file on every call (FAKETIME_NO_CACHE) and leaves the monotonic
// clock alone (FAKETIME_DONT_FAKE_MONOTONIC), so only the wall clock jumps, as on a box
// whose time is set by NTP after boot. Also a stand-in `timedatectl` on PATH, so the test
// says whether "the system" reports its clock synchronised.
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { faketimeDep, installHint } from './system-deps.ts'

/** libfaketimeMT.so.1 for this machine's architecture (FAKETIME_LIB names another). */
export function libfaketimePath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.FAKETIME_LIB) {
    if (existsSync(env.FAKETIME_LIB)) return env.FAKETIME_LIB
    throw new Error(`FAKETIME_LIB=${env.FAKETIME_LIB} does not exist`)
  }
  const dirs = ['/usr/lib/faketime', '/usr/local/lib/faketime']
  // Debian puts it under the multiarch triplet (x86_64-linux-gnu, aarch64-linux-gnu, ...).
  for (const entry of safeList('/usr/lib')) dirs.push(path.join('/usr/lib', entry, 'faketime'))
  for (const dir of dirs) {
    const file = path.join(dir, 'libfaketimeMT.so.1')
    if (existsSync(file)) return file
  }
  throw new Error(`libfaketime is not installed: run ${installHint([faketimeDep])}`)
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir).filter((name) => name.includes('-linux-'))
  } catch {
    return []
  }
}

export interface FakeSystemClock {
  /** Environment for the process whose clock is faked. */
  env: Record<string, string>
  /** Sets the wall clock's offset from the real time, e.g. "-3h", "+2h", "+0". */
  offset(offset: string): void
  /** What the stand-in timedatectl answers for NTPSynchronized. */
  synchronized(value: boolean): void
}

export function fakeSystemClock(dir: string, startOffset: string, synchronized: boolean): FakeSystemClock {
  const offsetFile = path.join(dir, 'faketime-offset')
  const syncFile = path.join(dir, 'ntp-synchronized')
  const bin = path.join(dir, 'bin')
  const fake: FakeSystemClock = {
    env: {},
    offset: (offset) => writeFileSync(offsetFile, `${offset}\n`),
    synchronized: (value) => writeFileSync(syncFile, value ? 'yes\n' : 'no\n'),
  }
  fake.offset(startOffset)
  fake.synchronized(synchronized)
  mkdirSync(bin, { recursive: true })
  const script = path.join(bin, 'timedatectl')
  // `timedatectl show -p NTPSynchronized --value` as systemd answers it.
  writeFileSync(script, `#!/bin/sh\nexec cat '${syncFile.replaceAll("'", "'\\''")}'\n`)
  chmodSync(script, 0o755)
  fake.env = {
    LD_PRELOAD: libfaketimePath(),
    FAKETIME_TIMESTAMP_FILE: offsetFile,
    FAKETIME_NO_CACHE: '1',
    FAKETIME_DONT_FAKE_MONOTONIC: '1',
    PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
  }
  return fake
}
