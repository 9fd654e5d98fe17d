// runtime/upgrade/service-manager.ts runs `systemctl` from PATH and reads `show`'s Key=Value
// lines; a failing call says which one and why.
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { systemctl } from '../../../runtime/upgrade/service-manager.ts'

t.test('start, stop, restart and show through the systemctl on PATH', async (t) => {
  const dir = t.testdir({})
  const calls = path.join(dir, 'calls')
  writeFileSync(
    path.join(dir, 'systemctl'),
    `#!/bin/sh\necho "$*" >>'${calls}'\ncase "$1" in\n  show) printf 'ActiveState=active\\nMainPID=42\\nNRestarts=3\\n' ;;\n  stop) echo 'Failed to stop: denied' >&2; exit 1 ;;\nesac\n`,
    { mode: 0o755 },
  )
  const saved = process.env.PATH
  process.env.PATH = `${dir}:${saved}`
  t.teardown(() => {
    process.env.PATH = saved
  })
  const service = systemctl('tracker-gateway')
  await service.start()
  await service.restart()
  t.same(await service.state(), { active: 'active', mainPid: 42, restarts: 3 })
  await t.rejects(service.stop(), /systemctl stop tracker-gateway failed: Failed to stop: denied/)
  t.equal(
    readFileSync(calls, 'utf8'),
    'start tracker-gateway\nrestart tracker-gateway\nshow tracker-gateway --property=ActiveState,MainPID,NRestarts\nstop tracker-gateway\n',
  )
})
