import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t, { type Test } from 'tap'
import { controlSocketName } from '../../../runtime/control/control.ts'
import { ownerFileName } from '../../../runtime/wiring/data-dir-lock.ts'
import { locateGateway } from '../../../runtime/cli/gateway-locate.ts'
import { gatewayRunsOn, isAlive, registerGateway, runningGateways } from '../../../runtime/wiring/gateway-registry.ts'

/** The PID of a process that has ended. */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!

/** Short paths, so control sockets are in their data dirs (a Unix socket path has 107 bytes). */
function shortDir(t: Test, folders: string[]): string {
  const root = mkdtempSync(path.join(tmpdir(), 'reg-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  for (const folder of folders) mkdirSync(path.join(root, folder))
  return root
}

/** A data dir that looks like one a gateway runs on (or ran on, when pid is dead). */
function fakeDataDir(dir: string, pid: number): string {
  writeFileSync(path.join(dir, ownerFileName), JSON.stringify({ pid, port: 8000, host: '0.0.0.0', startedAt: 1 }))
  writeFileSync(path.join(dir, controlSocketName), '')
  return dir
}

t.test('the registry: live gateways listed, entries of killed ones removed, an unregister removes only its own', async (t) => {
  const root = shortDir(t, ['registry', 'live', 'killed'])
  const registry = path.join(root, 'registry')
  const live = fakeDataDir(path.join(root, 'live'), process.pid)
  const dead = deadPid()
  t.notOk(isAlive(dead))
  registerGateway({ pid: dead, port: 1, dataDir: fakeDataDir(path.join(root, 'killed'), dead), startedAt: 1 }, registry)
  const unregister = registerGateway({ pid: process.pid, port: 8000, dataDir: live, startedAt: 2 }, registry)
  writeFileSync(path.join(registry, 'broken.json'), '{')
  t.match(runningGateways(registry), [{ pid: process.pid, dataDir: live }])
  t.equal(readdirSync(registry).length, 2, 'the killed gateway is gone from the registry; a broken file is left alone')
  t.ok(gatewayRunsOn(live))
  t.notOk(gatewayRunsOn(path.join(root, 'killed')), 'a socket file left by a killed gateway is not a running gateway')
  t.same(runningGateways(path.join(root, 'none')), [], 'no registry yet: none')

  registerGateway({ pid: dead, port: 2, dataDir: live, startedAt: 3 }, registry)
  unregister()
  t.ok(existsSync(path.join(registry, readdirSync(registry).find((name) => name !== 'broken.json')!)), 'replaced by a later gateway: kept')
})

t.test('locate: past a stale socket in the resolved data dir to the one running gateway', async (t) => {
  const root = shortDir(t, ['registry', 'here', 'there'])
  const registry = path.join(root, 'registry')
  const here = fakeDataDir(path.join(root, 'here'), deadPid())
  const there = fakeDataDir(path.join(root, 'there'), process.pid)
  registerGateway({ pid: process.pid, port: 8001, dataDir: there, startedAt: 1 }, registry)
  const found = locateGateway({ overrides: {}, resolvedDataDir: here, env: {}, cwd: root, registry })
  t.equal(found.dataDir, there)
  t.equal(found.note, `using the gateway on data dir ${there} (PID ${process.pid}, port 8001)`)
  const explicit = locateGateway({ overrides: {}, resolvedDataDir: here, env: { GATEWAY_DATA_DIR: here }, cwd: root, registry })
  t.same(explicit, { dataDir: here, lookedIn: `looked in data dir ${here} (from GATEWAY_DATA_DIR)` })
})
