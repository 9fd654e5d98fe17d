import { writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { installCommands, prepareTestDeps, type Machine } from '../../scripts/prepare-test-deps.ts'
import { chromiumDep, faketimeDep, findExecutable, installHint, mosquittoDep, requireExecutable, xzDep, type SystemDep } from '../helpers/system-deps.ts'

const machine = (overrides: Partial<Machine> = {}): Machine => ({ uid: 0, hasAptGet: true, sudoWithoutPassword: () => false, noApt: false, ...overrides })

t.test('finding a program: the environment variable first, then PATH, then the usual places', async (t) => {
  const dir = t.testdir({ bin: {}, other: {} })
  const fake = path.join(dir, 'bin', 'chromium')
  writeFileSync(fake, '#!/bin/sh\n', { mode: 0o755 })
  writeFileSync(path.join(dir, 'other', 'chrome'), 'not executable', { mode: 0o644 })
  t.equal(findExecutable(chromiumDep, { CHROME_PATH: fake }), fake)
  t.equal(findExecutable(chromiumDep, { PATH: `${path.join(dir, 'other')}:${path.join(dir, 'bin')}` }), fake, 'a non-executable file is passed over')
  t.equal(findExecutable(chromiumDep, { CHROMIUM_PATH: path.join(dir, 'missing') }), undefined, 'a variable naming nothing wins, and fails')
  t.throws(() => requireExecutable(chromiumDep, { CHROMIUM_PATH: path.join(dir, 'missing') }), {
    message: /^CHROMIUM_PATH=.*missing is not an executable file$/,
  })
  const nowhere: SystemDep = { ...mosquittoDep, locations: [path.join(dir, 'nope')] }
  t.throws(() => requireExecutable(nowhere, { PATH: dir }), {
    message: 'Mosquitto is not installed: run sudo apt-get install -y mosquitto (or set MOSQUITTO_PATH=/path/to/it)',
  })
  t.equal(requireExecutable(nowhere, { MOSQUITTO_PATH: fake }), fake)
  t.equal(installHint([chromiumDep, mosquittoDep]), 'sudo apt-get install -y chromium mosquitto (or set CHROMIUM_PATH=/path/to/it MOSQUITTO_PATH=/path/to/it)')
  t.equal(installHint([xzDep]), 'sudo apt-get install -y xz-utils', 'nothing to set for xz')
  t.equal(installHint([faketimeDep]), 'sudo apt-get install -y faketime', 'faketime brings libfaketime')
  t.throws(() => requireExecutable(xzDep, { PATH: dir }), { message: 'xz is not installed: run sudo apt-get install -y xz-utils' })
})

t.test('installing with apt-get: as root, with sudo without a password, never otherwise', async (t) => {
  const both = [chromiumDep, mosquittoDep]
  t.same(installCommands(both, machine()), [
    ['apt-get', 'update', '-qq'],
    ['env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', 'install', '-y', '-qq', '--no-install-recommends', 'chromium', 'mosquitto'],
  ])
  t.same(installCommands([mosquittoDep], machine({ uid: 1000, sudoWithoutPassword: () => true }))?.[0], ['sudo', '-n', 'apt-get', 'update', '-qq'])
  t.equal(installCommands(both, machine({ uid: 1000 })), undefined, 'no sudo: nothing')
  t.equal(installCommands(both, machine({ hasAptGet: false })), undefined, 'not Debian: nothing')
  t.equal(installCommands(both, machine({ noApt: true })), undefined, 'GATEWAY_TEST_NO_APT=1: nothing')
  t.equal(installCommands([], machine()), undefined, 'nothing missing: nothing')
})

t.test('the pretest: quiet when all is there, otherwise installs or says the one command', async (t) => {
  const dir = t.testdir({})
  const fake = path.join(dir, 'program')
  writeFileSync(fake, '#!/bin/sh\n', { mode: 0o755 })
  const xzHere = path.dirname(findExecutable(xzDep)!)
  t.same(prepareTestDeps({ CHROMIUM_PATH: fake, MOSQUITTO_PATH: fake, PATH: xzHere }), [])

  const env = { CHROMIUM_PATH: path.join(dir, 'none'), MOSQUITTO_PATH: fake, PATH: xzHere }
  const ran: string[][] = []
  const failing = prepareTestDeps(env, (command) => (ran.push(command), false), machine())
  t.same(ran, [['apt-get', 'update', '-qq']], 'stops at the first failing command')
  t.same(failing, [
    'npm test: Chrome or Chromium not found (needed by some tests)',
    "npm test: installing Debian's chromium with apt-get",
    'npm test: apt-get failed',
    'npm test: the tests that need them will fail; run: sudo apt-get install -y chromium (or set CHROMIUM_PATH=/path/to/it)',
  ])
  const cannot = prepareTestDeps(env, () => t.fail('runs nothing'), machine({ uid: 1000 }))
  t.equal(cannot.length, 2)
  t.match(cannot[1], /run: sudo apt-get install -y chromium/)
  // An install that works: the program is there afterwards.
  const installed = prepareTestDeps(
    env,
    (command) => {
      if (command.includes('install')) writeFileSync(env.CHROMIUM_PATH, '#!/bin/sh\n', { mode: 0o755 })
      return true
    },
    machine(),
  )
  t.same(installed, ['npm test: Chrome or Chromium not found (needed by some tests)', "npm test: installing Debian's chromium with apt-get"])
})
