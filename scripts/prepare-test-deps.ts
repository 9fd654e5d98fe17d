// `npm test`'s pretest: the programs some tests need besides Node (Chromium for the board's
// browser tests, Mosquitto for the fleet bridge's, PostgreSQL for headquarters', xz for the install script's, faketime for the clock-step tests, promtool for the metrics and alert rules), installed from Debian's packages when
// they are missing and this machine can (root, or sudo without a password, and apt-get).
// Otherwise it says the one command to run; the tests that need them then fail with it.
// GATEWAY_TEST_NO_APT=1 never installs anything.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { findExecutable, installHint, systemDeps, type SystemDep } from '../tests/helpers/system-deps.ts'

export interface Machine {
  uid: number
  hasAptGet: boolean
  /** `sudo -n true` works. */
  sudoWithoutPassword: () => boolean
  noApt: boolean
}

/** The commands that install the missing packages here, or undefined when this machine cannot. */
export function installCommands(missing: SystemDep[], machine: Machine): string[][] | undefined {
  if (!missing.length || machine.noApt || !machine.hasAptGet) return undefined
  const prefix = machine.uid === 0 ? [] : machine.sudoWithoutPassword() ? ['sudo', '-n'] : undefined
  if (!prefix) return undefined
  // One package may bring several programs (prometheus: promtool and the server).
  const packages = [...new Set(missing.map((dep) => dep.debianPackage))]
  return [
    [...prefix, 'apt-get', 'update', '-qq'],
    [...prefix, 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', 'install', '-y', '-qq', '--no-install-recommends', ...packages],
  ]
}

type Run = (command: string[]) => boolean

const runQuietly: Run = (command) => spawnSync(command[0], command.slice(1), { stdio: ['ignore', 'ignore', 'inherit'] }).status === 0

export function thisMachine(env: NodeJS.ProcessEnv, run: Run): Machine {
  return {
    uid: process.getuid?.() ?? -1,
    hasAptGet: existsSync('/usr/bin/apt-get'),
    sudoWithoutPassword: () => run(['sudo', '-n', 'true']),
    noApt: env.GATEWAY_TEST_NO_APT === '1',
  }
}

/** Installs what is missing where it can; returns the lines to show (none when all is there). */
export function prepareTestDeps(env: NodeJS.ProcessEnv = process.env, run: Run = runQuietly, machine = thisMachine(env, run)): string[] {
  const missing = systemDeps.filter((dep) => !findExecutable(dep, env))
  if (!missing.length) return []
  const names = missing.map((dep) => dep.name).join(' and ')
  const commands = installCommands(missing, machine)
  const lines = [`npm test: ${names} not found (needed by some tests)`]
  if (commands) {
    lines.push(`npm test: installing Debian's ${[...new Set(missing.map((dep) => dep.debianPackage))].join(' ')} with apt-get`)
    if (commands.every(run) && systemDeps.every((dep) => findExecutable(dep, env))) return lines
    lines.push('npm test: apt-get failed')
  }
  lines.push(`npm test: the tests that need them will fail; run: ${installHint(missing.filter((dep) => !findExecutable(dep, env)))}`)
  return lines
}

if (import.meta.main) {
  for (const line of prepareTestDeps()) console.error(line)
}
