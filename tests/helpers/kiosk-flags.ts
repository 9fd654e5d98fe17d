// The Chromium flags deploy/kiosk/tracker-board-kiosk.sh starts a wall screen with, read by
// running the script with a stand-in Chromium that prints its arguments, so the tests launch
// a browser with exactly the documented flags.
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

export const kioskScript = path.resolve(import.meta.dirname, '../../deploy/kiosk/tracker-board-kiosk.sh')

/** Runs the kiosk script with `env`; answers the arguments it gave Chromium. */
export function kioskArguments(env: Record<string, string> = {}): string[] {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kiosk-'))
  const fake = path.join(dir, 'chromium')
  writeFileSync(fake, '#!/bin/sh\nfor arg in "$@"; do printf "%s\\n" "$arg"; done\n')
  chmodSync(fake, 0o755)
  const out = execFileSync('sh', [kioskScript], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, CHROMIUM: fake, ...env }, encoding: 'utf8' })
  return out.split('\n').filter(Boolean)
}
