// The wall-screen kiosk script: Chromium full screen with the autoplay flag, at the gateway
// on this computer or at BOARD_URL, with its own profile (where the board keeps its token).
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { kioskArguments, kioskScript } from '../helpers/kiosk-flags.ts'

t.test('the script starts Chromium in kiosk mode with sound that needs no tap', async (t) => {
  const args = kioskArguments()
  t.ok(args.includes('--autoplay-policy=no-user-gesture-required'))
  t.ok(args.includes('--kiosk'))
  t.equal(args.at(-1), 'http://127.0.0.1:8000/', 'the gateway on this computer by default')
  const profile = args.find((arg) => arg.startsWith('--user-data-dir='))!.split('=')[1]!
  t.ok(existsSync(profile), 'its own profile directory, made')
  t.equal(kioskArguments({ BOARD_URL: 'http://gateway.local:8000/' }).at(-1), 'http://gateway.local:8000/', 'a second computer points at the gateway')
})

t.test('without Chromium it says what to install', async (t) => {
  const home = mkdtempSync(path.join(os.tmpdir(), 'kiosk-'))
  let stderr = ''
  try {
    execFileSync('/bin/sh', [kioskScript], { env: { PATH: home, HOME: home }, encoding: 'utf8', stdio: 'pipe' })
    t.fail('should exit non-zero')
  } catch (error) {
    stderr = String((error as { stderr?: string }).stderr)
  }
  t.match(stderr, /no Chromium found/)
})

t.test('the user unit runs the installed script and restarts it', async (t) => {
  const unit = readFileSync(path.resolve(import.meta.dirname, '../../deploy/kiosk/tracker-board-kiosk.service'), 'utf8')
  t.match(unit, /^ExecStart=%h\/\.local\/bin\/tracker-board-kiosk$/m)
  t.match(unit, /^Restart=always$/m)
  t.match(unit, /^WantedBy=graphical-session\.target$/m)
})
