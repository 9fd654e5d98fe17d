// A network namespace made by a test, so a browser and servers can talk over addresses that
// are not loopback (Chromium treats 127.0.0.0/8 and localhost specially) without touching the
// machine's own network: the addresses exist only on the namespace's loopback device, and
// everything that uses them runs inside it (`ip netns exec`). Needs root and iproute2's
// `ip netns`; `netnsUnavailable()` says why not, for a skip.
import { execFileSync, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import type { Test } from 'tap'
import { findExecutable, installHint, ipDep } from './system-deps.ts'

/** Why this machine cannot make a namespace, or undefined when it can. */
export function netnsUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'needs root to create a network namespace (CI runs as root)'
  if (!findExecutable(ipDep)) return `iproute2 is not installed: run ${installHint([ipDep])}`
  const probe = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' })
  if (probe.error || probe.status !== 0) return `\`ip netns\` is not available: ${probe.error?.message ?? probe.stderr.trim()}`
  return undefined
}

export interface Namespace {
  name: string
  /** The command line prefix that runs a program inside the namespace. */
  prefix: string[]
}

/** A fresh namespace whose loopback device is up and carries `addresses` (each a /32); removed at teardown. */
export function makeNamespace(t: Test, addresses: string[]): Namespace {
  const name = `tg-test-${process.pid}-${randomBytes(3).toString('hex')}`
  execFileSync('ip', ['netns', 'add', name])
  t.teardown(() => {
    spawnSync('ip', ['netns', 'del', name])
  })
  const inside = (...args: string[]) => execFileSync('ip', ['netns', 'exec', name, 'ip', ...args])
  inside('link', 'set', 'lo', 'up')
  for (const address of addresses) inside('addr', 'add', `${address}/32`, 'dev', 'lo')
  return { name, prefix: ['ip', 'netns', 'exec', name] }
}
