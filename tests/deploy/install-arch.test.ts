// deploy/install.sh picks Node for the userland, not the kernel: a 32-bit Raspberry Pi OS on a
// Pi 4/5 runs a 64-bit kernel (`uname -m` says aarch64). dpkg, uname and getconf are faked on
// PATH; a refused system must be refused before anything is changed (no user, no files).
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'

const script = path.resolve(import.meta.dirname, '../../deploy/install.sh')
const faked = ['dpkg', 'uname', 'getconf']

interface Machine {
  /** What `dpkg --print-architecture` prints; undefined: no dpkg at all. */
  dpkg?: string
  uname: string
  longBit: '32' | '64'
}

/** A PATH holding this machine's programs, with dpkg, uname and getconf replaced (or dpkg absent). */
function fakePath(dir: string, machine: Machine): string {
  const bin = path.join(dir, 'bin')
  mkdirSync(bin)
  for (const real of (process.env.PATH ?? '').split(':').filter(Boolean)) {
    let names: string[] = []
    try {
      names = readdirSync(real)
    } catch {
      continue
    }
    for (const name of names) {
      if (faked.includes(name) || existsSync(path.join(bin, name))) continue
      symlinkSync(path.join(real, name), path.join(bin, name))
    }
  }
  if (machine.dpkg !== undefined) writeFileSync(path.join(bin, 'dpkg'), `#!/bin/sh\n[ "$1" = --print-architecture ] && echo ${machine.dpkg}\n`, { mode: 0o755 })
  writeFileSync(path.join(bin, 'uname'), `#!/bin/sh\necho ${machine.uname}\n`, { mode: 0o755 })
  writeFileSync(path.join(bin, 'getconf'), `#!/bin/sh\n[ "$1" = LONG_BIT ] && echo ${machine.longBit}\n`, { mode: 0o755 })
  return bin
}

function install(dir: string, machine: Machine, action = 'install') {
  const root = path.join(dir, 'root')
  const emptyMirror = path.join(dir, 'mirror')
  mkdirSync(emptyMirror)
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: fakePath(dir, machine) }
  delete env.TRACKER_NODE_ARCH
  const result = spawnSync('bash', [script, action, '--root', root, '--test-mode', '--node-dist', emptyMirror], { encoding: 'utf8', env })
  return { ...result, root }
}

const refusals: Array<[string, Machine]> = [
  ['32-bit Raspberry Pi OS on a 64-bit kernel (dpkg says armhf)', { dpkg: 'armhf', uname: 'aarch64', longBit: '32' }],
  ['32-bit userland on a 64-bit kernel without dpkg (getconf LONG_BIT 32)', { uname: 'aarch64', longBit: '32' }],
  ['32-bit Raspberry Pi OS on a 32-bit kernel', { dpkg: 'armhf', uname: 'armv7l', longBit: '32' }],
  ['a 32-bit x86 userland on a 64-bit kernel', { dpkg: 'i386', uname: 'x86_64', longBit: '32' }],
]

for (const [name, machine] of refusals) {
  t.test(`refused before changing anything: ${name}`, async (t) => {
    for (const action of ['install', 'upgrade']) {
      const result = install(t.testdir(), machine, action)
      t.equal(result.status, 1, `${action}: ${result.stderr}`)
      t.match(result.stderr, /this system is 32-bit \(\w+ userland, \w+ kernel\) and Node [\d.]+ has no 32-bit build\. Flash Raspberry Pi OS Lite \(64-bit\)/)
      t.match(result.stderr, /nothing was changed/)
      t.notOk(existsSync(path.join(result.root, 'install-actions.log')), 'no system command (apt-get, useradd) was run')
      t.same(readdirSync(result.root), [], 'no file written')
    }
  })
}

t.test('an architecture Node has no build for is refused the same way', async (t) => {
  const result = install(t.testdir(), { dpkg: 'riscv64', uname: 'riscv64', longBit: '64' })
  t.equal(result.status, 1)
  t.match(result.stderr, /no Node\.js build for a riscv64 userland \(riscv64 kernel\).*nothing was changed/)
  t.notOk(existsSync(path.join(result.root, 'install-actions.log')))
})

const accepted: Array<[string, Machine, string]> = [
  ['64-bit Raspberry Pi OS', { dpkg: 'arm64', uname: 'aarch64', longBit: '64' }, 'linux-arm64 (userland arm64, kernel aarch64)'],
  ['arm64 without dpkg', { uname: 'aarch64', longBit: '64' }, 'linux-arm64 (userland arm64, kernel aarch64)'],
  ['Debian amd64', { dpkg: 'amd64', uname: 'x86_64', longBit: '64' }, 'linux-x64 (userland amd64, kernel x86_64)'],
]

for (const [name, machine, line] of accepted) {
  t.test(`Node for the userland: ${name}`, async (t) => {
    const result = install(t.testdir(), machine)
    t.match(result.stdout, new RegExp(`install\\.sh: Node [\\d.]+ for ${line.replace(/[()]/g, '\\$&')}`))
    // The empty mirror stops it at the download, naming the tarball for that architecture.
    t.equal(result.status, 1)
    t.match(result.stderr, /cannot get .*\/SHASUMS256\.txt/)
    t.match(result.stdout, new RegExp(`node-v[\\d.]+-${line.split(' ')[0]}`))
  })
}
