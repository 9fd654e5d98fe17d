// The stand-in for systemd the Debian chroot tests run the installed unit with
// (tests/helpers/unit-supervisor.ts, scripts/chroot-upgrade-steps.sh), checked here in
// seconds: what it reads from deploy/tracker-gateway.service, and a unit of its own run for
// real (ExecStartPre before every start, "-" and not, Restart=always with NRestarts counted,
// systemctl show, is-active, stop, restart).
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t from 'tap'
import { parseUnit, serviceSpec } from '../helpers/unit-supervisor.ts'
import { until } from '../helpers/until.ts'

const unitFile = path.join(import.meta.dirname, '../../deploy/tracker-gateway.service')

t.test("the installed unit's settings", async (t) => {
  const unit = parseUnit(readFileSync(unitFile, 'utf8'))
  t.same(unit.execStartPre, [{ command: '/usr/local/bin/gateway', args: ['upgrade', '--recover'], privileged: true, mayFail: true }])
  t.equal(unit.execStart.command, '/usr/local/lib/tracker-gateway/node/bin/node')
  t.equal(unit.execStart.args.at(-1), 'start')
  t.match(unit, {
    user: 'tracker',
    group: 'tracker',
    supplementaryGroups: ['dialout'],
    workingDirectory: '/opt/tracker-gateway',
    restart: 'always',
    restartSec: 3,
  })
  t.equal(unit.environment.GATEWAY_CONFIG, '/etc/tracker-gateway/gateway.config.json')
  const spec = serviceSpec(unit, '/var/log/x.log')
  t.same(spec.args.slice(0, 4), ['--reuid=tracker', '--regid=tracker', '--groups=tracker,dialout', unit.execStart.command], 'ExecStart as tracker')
  t.equal(spec.command, 'setpriv')
  t.same(spec.preStart, [{ command: '/usr/local/bin/gateway', args: ['upgrade', '--recover'], mayFail: true }], '"+": the start-up check as root')
  t.equal(spec.restartMs, 3000)
  t.throws(() => parseUnit('[Service]\nExecStart=/bin/true\nRestart=on-abort\n'), /Restart=on-abort is not supported/)
})

t.test('a unit run for real', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'unitsup-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const file = (name: string) => path.join(dir, name)
  writeFileSync(file('service.sh'), `echo $$ >>'${file('starts')}'\n[ -e '${file('crash')}' ] && exit 3\nexec sleep 600\n`)
  writeFileSync(
    file('test.service'),
    [
      '[Unit]',
      'Description=stand-in test',
      '[Service]',
      `ExecStartPre=-/bin/sh -c 'echo pre >>${file('pres')}; exit 1'`,
      `ExecStartPre=/bin/sh -c "test ! -e ${file('block')}"`,
      `ExecStart=/bin/sh ${file('service.sh')}`,
      'Environment=A=1 B=two',
      'Restart=always',
      'RestartSec=0.2',
      '',
    ].join('\n'),
  )
  const state = file('state')
  const supervisor = spawn(
    process.execPath,
    [
      '--disable-warning=ExperimentalWarning',
      path.join(import.meta.dirname, '../helpers/unit-supervisor.ts'),
      file('test.service'),
      state,
      file('log'),
      '--start',
    ],
    {
      stdio: 'inherit',
    },
  )
  t.teardown(() => supervisor.kill('SIGTERM'))
  const systemctl = (...args: string[]) => spawnSync(path.join(state, 'bin/systemctl'), [...args, 'test'], { encoding: 'utf8' })
  const show = () =>
    Object.fromEntries(
      systemctl('show', '--property=ActiveState,MainPID,NRestarts')
        .stdout.trim()
        .split('\n')
        .map((line) => line.split('=')),
    )
  const lines = (name: string) => (existsSync(file(name)) ? readFileSync(file(name), 'utf8').trim().split('\n') : [])
  await until(() => existsSync(path.join(state, 'ready')) && lines('starts').length === 1, 'the service to start')

  await until(() => show().ActiveState === 'active', 'active')
  t.equal(show().MainPID, lines('starts')[0], 'MainPID is the service')
  t.equal(lines('pres').length, 1, 'ExecStartPre ran first; its failure ("-") did not stop the start')
  t.same([systemctl('is-active').status, systemctl('is-active').stdout], [0, 'active\n'])
  t.equal(systemctl('show', '--property=MainPID').stdout, `MainPID=${lines('starts')[0]}\n`, 'show: only the properties asked for')

  writeFileSync(file('crash'), '')
  process.kill(Number(show().MainPID), 'SIGKILL')
  await until(() => Number(show().NRestarts) >= 2, 'Restart=always to restart it twice')
  // The restart is counted before its ExecStartPre runs: wait for the pre of each restart so far.
  const restarts = Number(show().NRestarts)
  await until(() => lines('pres').length >= restarts + 1, 'ExecStartPre before every start')
  t.ok(lines('pres').length >= 3, 'ExecStartPre before every start')
  await rm(file('crash'))
  await until(() => show().ActiveState === 'active', 'active again')

  const before = show()
  t.equal(systemctl('restart').status, 0)
  const after = show()
  t.not(after.MainPID, before.MainPID, 'restart: a new process')
  t.equal(after.NRestarts, before.NRestarts, 'a restart asked for is not counted as one after an exit')

  t.equal(systemctl('stop').status, 0)
  t.same([systemctl('is-active').status, systemctl('is-active').stdout], [3, 'inactive\n'], 'is-active exits 3 when stopped')
  t.throws(() => process.kill(Number(after.MainPID), 0), 'the process is gone')

  writeFileSync(file('block'), '')
  const starts = lines('starts').length
  t.equal(systemctl('start').status, 0)
  await until(() => Number(show().NRestarts) > Number(after.NRestarts), 'a failed ExecStartPre (no "-") to count as a failed start')
  t.equal(lines('starts').length, starts, 'ExecStart not run after a failed ExecStartPre')
  await rm(file('block'))
  await until(() => show().ActiveState === 'active', 'started once the ExecStartPre passes')
  t.match(systemctl('frobnicate'), { status: 1, stderr: /frobnicate is not known/ })
})
