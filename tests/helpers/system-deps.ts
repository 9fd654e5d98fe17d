// The programs some tests need besides Node: a Chrome or Chromium for the board's browser
// tests, Mosquitto for the fleet bridge's broker tests, PostgreSQL for headquarters', xz for the install script's Node
// tarball (tests/deploy), libfaketime for the clock-step tests, iproute2's ip for the network namespace of a LAN browser test,
// Prometheus' promtool for the metrics and alert rules. Found through an environment
// variable, then PATH, then the usual places; `npm test` installs Debian's packages first
// where it can (scripts/prepare-test-deps.ts), and otherwise a test that needs one fails
// with the one command to run.
import { accessSync, constants } from 'node:fs'
import path from 'node:path'

export interface SystemDep {
  /** What the tests call it. */
  name: string
  /** Environment variables naming the executable, first wins. */
  envVars: string[]
  /** Names to look for on PATH. */
  commands: string[]
  /** Absolute paths where installers usually put it. */
  locations: string[]
  /** The Debian package that provides it. */
  debianPackage: string
}

export const chromiumDep: SystemDep = {
  name: 'Chrome or Chromium',
  envVars: ['CHROMIUM_PATH', 'CHROME_PATH'],
  commands: ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'chrome'],
  locations: [
    '/usr/bin/chromium',
    '/usr/lib/chromium/chromium',
    '/snap/bin/chromium',
    '/opt/google/chrome/chrome',
    '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
    '/Applications/Chromium.app/Contents/MacOS/Chromium',
  ],
  debianPackage: 'chromium',
}

export const mosquittoDep: SystemDep = {
  name: 'Mosquitto',
  envVars: ['MOSQUITTO_PATH'],
  commands: ['mosquitto'],
  locations: ['/usr/sbin/mosquitto', '/usr/local/sbin/mosquitto', '/opt/homebrew/sbin/mosquitto', '/usr/local/opt/mosquitto/sbin/mosquitto'],
  debianPackage: 'mosquitto',
}

/**
 * PostgreSQL's server programs, for headquarters' tests (tests/helpers/postgres.ts starts one
 * with initdb and pg_ctl). Debian keeps them off PATH, under /usr/lib/postgresql/<major>/bin.
 */
export const postgresDep: SystemDep = {
  name: 'PostgreSQL',
  envVars: ['PG_CTL_PATH'],
  commands: ['pg_ctl'],
  locations: ['17', '16', '15'].map((major) => `/usr/lib/postgresql/${major}/bin/pg_ctl`),
  debianPackage: 'postgresql',
}

/** tar -J runs xz from PATH, so no variable can name another one. */
export const xzDep: SystemDep = {
  name: 'xz',
  envVars: [],
  commands: ['xz'],
  locations: [],
  debianPackage: 'xz-utils',
}

/**
 * libfaketime for the clock-step tests (tests/runtime/clock-steps.test.ts): the `faketime`
 * command stands for the package, which brings the preload library (tests/helpers/faketime.ts
 * finds that per architecture).
 */
export const faketimeDep: SystemDep = {
  name: 'faketime',
  envVars: [],
  commands: ['faketime'],
  locations: ['/usr/bin/faketime'],
  debianPackage: 'faketime',
}

/** iproute2's `ip`: the LAN browser test makes a network namespace (tests/helpers/netns.ts). */
export const ipDep: SystemDep = {
  name: 'ip (iproute2)',
  envVars: [],
  commands: ['ip'],
  locations: ['/usr/sbin/ip', '/sbin/ip', '/usr/bin/ip', '/bin/ip'],
  debianPackage: 'iproute2',
}

/**
 * Prometheus' promtool (Debian's `prometheus` package, which brings the server too): the
 * metrics' text is linted with `promtool check metrics`, deploy/prometheus/rules.yml with
 * `promtool check rules` and its unit tests with `promtool test rules`.
 */
export const promtoolDep: SystemDep = {
  name: 'promtool',
  envVars: ['PROMTOOL_PATH'],
  commands: ['promtool'],
  locations: ['/usr/bin/promtool', '/usr/local/bin/promtool'],
  debianPackage: 'prometheus',
}

/** The Prometheus server of the same package: tests/deploy/prometheus-scrape.test.ts scrapes a gateway and HQ with it. */
export const prometheusDep: SystemDep = {
  name: 'Prometheus',
  envVars: ['PROMETHEUS_PATH'],
  commands: ['prometheus'],
  locations: ['/usr/bin/prometheus', '/usr/local/bin/prometheus'],
  debianPackage: 'prometheus',
}

export const systemDeps = [chromiumDep, mosquittoDep, xzDep, postgresDep, faketimeDep, ipDep, promtoolDep, prometheusDep]

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** The executable to use, or undefined. An environment variable naming a missing file is not skipped silently: it wins or fails. */
export function findExecutable(dep: SystemDep, env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const variable of dep.envVars) {
    const value = env[variable]
    if (value) return isExecutable(value) ? value : undefined
  }
  const onPath = (env.PATH ?? '').split(path.delimiter).filter(Boolean)
  for (const command of dep.commands) {
    for (const dir of onPath) {
      const file = path.join(dir, command)
      if (isExecutable(file)) return file
    }
  }
  return dep.locations.find(isExecutable)
}

/** The one command that makes the tests find the missing programs. */
export function installHint(missing: SystemDep[]): string {
  const packages = [...new Set(missing.map((dep) => dep.debianPackage))].join(' ')
  const variables = missing.filter((dep) => dep.envVars.length).map((dep) => `${dep.envVars[0]}=/path/to/it`)
  return `sudo apt-get install -y ${packages}${variables.length ? ` (or set ${variables.join(' ')})` : ''}`
}

/** For a test that needs it: the path, or an error that says what to run. */
export function requireExecutable(dep: SystemDep, env: NodeJS.ProcessEnv = process.env): string {
  const found = findExecutable(dep, env)
  if (found) return found
  const named = dep.envVars.find((variable) => env[variable])
  if (named) throw new Error(`${named}=${env[named]} is not an executable file`)
  throw new Error(`${dep.name} is not installed: run ${installHint([dep])}`)
}
