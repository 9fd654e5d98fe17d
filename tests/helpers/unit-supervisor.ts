// The smallest stand-in for systemd on a box without it (the Debian chroots of
// scripts/test-install-chroot*.sh): runs one unit file's service with the service stand-in
// (service-stand-in.ts) as systemd would: ExecStartPre before every start ("+" as root, "-"
// failure ignored), ExecStart as User=/Group=/SupplementaryGroups= (setpriv), with
// Environment= and WorkingDirectory=, started again as Restart= and RestartSec= say; and
// writes the `systemctl` that reaches it (start, stop, restart, show, is-active, enable,
// disable, daemon-reload).
//
//   node unit-supervisor.ts UNIT_FILE STATE_DIR LOG_FILE [--start]
//
// STATE_DIR/bin/systemctl is the command to put on PATH (or link as /usr/local/sbin/systemctl);
// STATE_DIR/ready appears once it answers. --start starts the service at once, as a boot
// starts an enabled unit. SIGTERM stops the service and ends the supervisor.
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { ServiceStandIn, type ServiceSpec } from './service-stand-in.ts'

export interface UnitCommand {
  command: string
  args: string[]
  /** "+": run with full privileges (as root, not User=). */
  privileged: boolean
  /** "-": its failure does not stop the start. */
  mayFail: boolean
}

export interface ServiceUnit {
  execStartPre: UnitCommand[]
  execStart: UnitCommand
  user: string | null
  group: string | null
  supplementaryGroups: string[]
  environment: Record<string, string>
  workingDirectory: string
  restart: 'always' | 'on-failure' | 'no'
  restartSec: number
}

/** Words of a command line: double and single quotes group, nothing else is interpreted. */
function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2] ?? match[3]!)
}

export function parseCommand(value: string): UnitCommand {
  const prefix = /^[-+@:!]*/.exec(value)![0]
  const [command, ...args] = words(value.slice(prefix.length))
  if (!command) throw new Error(`unit: an empty command line (${value})`)
  return { command, args, privileged: prefix.includes('+'), mayFail: prefix.includes('-') }
}

/** The [Service] section's settings this stand-in honours; others (hardening, limits) are ignored. */
export function parseUnit(text: string): ServiceUnit {
  const unit: ServiceUnit = {
    execStartPre: [],
    execStart: { command: '', args: [], privileged: false, mayFail: false },
    user: null,
    group: null,
    supplementaryGroups: [],
    environment: {},
    workingDirectory: '/',
    restart: 'no',
    restartSec: 0.1,
  }
  let section = ''
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue
    if (line.startsWith('[')) {
      section = line
      continue
    }
    if (section !== '[Service]') continue
    const key = line.slice(0, line.indexOf('=')).trim()
    const value = line.slice(line.indexOf('=') + 1).trim()
    if (key === 'ExecStartPre') unit.execStartPre.push(parseCommand(value))
    else if (key === 'ExecStart') unit.execStart = parseCommand(value)
    else if (key === 'User') unit.user = value
    else if (key === 'Group') unit.group = value
    else if (key === 'SupplementaryGroups') unit.supplementaryGroups.push(...words(value))
    else if (key === 'WorkingDirectory') unit.workingDirectory = value.replace(/^-/, '')
    else if (key === 'Environment') for (const pair of words(value)) unit.environment[pair.slice(0, pair.indexOf('='))] = pair.slice(pair.indexOf('=') + 1)
    else if (key === 'Restart') {
      if (value === 'always' || value === 'no') unit.restart = value
      else if (value === 'on-failure') unit.restart = 'on-failure'
      else throw new Error(`unit: Restart=${value} is not supported by this stand-in`)
    } else if (key === 'RestartSec') unit.restartSec = Number(value.replace(/s$/, ''))
  }
  if (!unit.execStart.command) throw new Error('unit: no ExecStart=')
  return unit
}

/** A command line as the unit's user (setpriv, as systemd's User=, Group= and SupplementaryGroups=), or as is. */
function asUser(unit: ServiceUnit, command: UnitCommand): { command: string; args: string[] } {
  if (command.privileged || !unit.user) return { command: command.command, args: command.args }
  const group = unit.group ?? unit.user
  const groups = [group, ...unit.supplementaryGroups].join(',')
  return { command: 'setpriv', args: [`--reuid=${unit.user}`, `--regid=${group}`, `--groups=${groups}`, command.command, ...command.args] }
}

/** What the service stand-in runs for a unit. */
export function serviceSpec(unit: ServiceUnit, logFile: string): ServiceSpec {
  const start = asUser(unit, unit.execStart)
  return {
    ...start,
    env: { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8', ...unit.environment },
    cwd: unit.workingDirectory,
    preStart: unit.execStartPre.map((pre) => ({ ...asUser(unit, pre), mayFail: pre.mayFail })),
    logFile,
    restart: unit.restart,
    restartMs: unit.restartSec * 1000,
  }
}

if (import.meta.main) {
  const [unitFile, stateDir, logFile, ...rest] = process.argv.slice(2)
  if (!unitFile || !stateDir || !logFile) {
    console.error('usage: unit-supervisor.ts UNIT_FILE STATE_DIR LOG_FILE [--start]')
    process.exit(2)
  }
  const service = new ServiceStandIn(stateDir, serviceSpec(parseUnit(readFileSync(unitFile, 'utf8')), logFile))
  await service.listen()
  writeFileSync(path.join(stateDir, 'ready'), `${process.pid}\n`)
  process.once('SIGTERM', () => void service.close().then(() => process.exit(0)))
  if (rest.includes('--start')) await service.start()
}
