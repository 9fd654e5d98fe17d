// The gateway's rollout agent against an HTTP server playing HQ's archive route: the steps
// it reports, the window (hours, active orders), the request it queues for
// `gateway upgrade --queued`, the result it reports (also after a restart), a stand-down,
// a download that fails, and a command it already took; after a restart or a lost broker
// connection, no upgrade before HQ's word; a torn .part, a line cut, a kill between keeping
// 'upgrading' and queuing. Random sequences of all of these: rollout-model.test.ts.
import { createHash, randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import http from 'node:http'
import path from 'node:path'
import t from 'tap'
import { fleetConfigSchema } from '../../../lib/fleet/config.ts'
import { insideHours, RolloutAgent, type RolloutAgentDeps } from '../../../runtime/workers/rollout.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { until } from '../../helpers/until.ts'

const archive = randomBytes(50_000)
const sha256 = createHash('sha256').update(archive).digest('hex')

/** HQ's archive route; `refuse(n)`: the next n requests have their connection dropped (a line cut). */
async function hq(t: { teardown(fn: () => unknown): void }, ranges: string[] = [], line = { refuse: 0 }) {
  const srv = http.createServer((req, res) => {
    if (line.refuse > 0) {
      line.refuse--
      return void req.socket.destroy()
    }
    ranges.push(String(req.headers.range))
    const match = /^bytes=(\d+)-(\d+)$/.exec(String(req.headers.range))!
    res.writeHead(206).end(archive.subarray(Number(match[1]), Number(match[2]) + 1))
  })
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => srv.close(resolve)))
  return `http://127.0.0.1:${(srv.address() as { port: number }).port}/api/hq/releases/1/archive`
}

const command = (url: string, overrides: Record<string, unknown> = {}) =>
  Buffer.from(
    JSON.stringify({
      rolloutId: 3,
      attempt: 1,
      action: 'upgrade',
      version: '0.2.0',
      sha256,
      size: archive.length,
      url,
      secret: 'x',
      signature: { signed: true },
      ...overrides,
    }),
  )

function agentFor(dir: string, overrides: Partial<RolloutAgentDeps> = {}) {
  let changes = 0
  const agent = new RolloutAgent({
    config: fleetConfigSchema.parse({}).rollout,
    dataDir: dir,
    layout: { rolloutResult: path.join(dir, 'rollout-result.json'), rolloutTaken: path.join(dir, 'rollout-taken.json') },
    runningVersion: '0.1.0',
    timezone: () => 'UTC',
    activeOrders: () => 0,
    changed: () => changes++,
    log: memoryLogger('error').log,
    pollMs: 50,
    ...overrides,
  })
  return { agent, changes: () => changes }
}

const result = (dir: string, ok: boolean, message: string, attempt = 1) =>
  writeFileSync(path.join(dir, 'rollout-result.json'), JSON.stringify({ rolloutId: 3, attempt, version: '0.2.0', ok, message, at: new Date().toISOString() }))

t.test('downloads, waits for its window, queues the upgrade, reports its result (after a restart too)', async (t) => {
  const dir = t.testdir({})
  const url = await hq(t)
  let orders = 1
  let now = Date.parse('2026-12-02T12:00:00Z')
  const config = { ...fleetConfigSchema.parse({}).rollout, window: { hours: '02:00-05:00', noActiveOrders: true } }
  const { agent, changes } = agentFor(dir, { config, activeOrders: () => orders, now: () => now })
  t.teardown(() => agent.stop())
  agent.start()
  t.equal(agent.report(), null, 'nothing to report before any rollout')
  agent.handle(command(url))
  await until(() => agent.report()?.state === 'waiting-for-window', 'waiting for the window')
  t.match(agent.report(), { rolloutId: 3, attempt: 1, version: '0.2.0', reason: 'outside the hours 02:00-05:00' })
  t.same(readFileSync(path.join(dir, 'rollout/tracker-gateway-0.2.0.tar.gz')), archive, 'downloaded first')
  t.same(JSON.parse(readFileSync(path.join(dir, 'rollout/tracker-gateway-0.2.0.tar.gz.sig'), 'utf8')), { signed: true }, 'its signature beside it')
  t.equal(statSync(path.join(dir, 'rollout')).mode & 0o777, 0o700, 'in a directory only the gateway user can open')
  now = Date.parse('2026-12-02T03:00:00Z')
  await until(() => agent.report()?.reason === 'orders are active', 'in the hours, orders still active')
  agent.handle(command(url))
  t.equal(agent.report()?.state, 'waiting-for-window', 'the same command again (retained) changes nothing')
  orders = 0
  await until(() => agent.report()?.state === 'upgrading' && existsSync(path.join(dir, 'rollout/request.json')), 'upgrading, the upgrade queued')
  t.match(JSON.parse(readFileSync(path.join(dir, 'rollout/request.json'), 'utf8')), {
    rolloutId: 3,
    attempt: 1,
    version: '0.2.0',
    archive: 'tracker-gateway-0.2.0.tar.gz',
  })
  t.ok(changes() >= 4, 'each step published')
  await agent.stop()

  // The upgrade restarts the gateway: the new one reads the kept state and waits for the result.
  const { agent: next } = agentFor(dir)
  t.teardown(() => next.stop())
  next.start()
  t.equal(next.report()?.state, 'upgrading')
  result(dir, true, 'upgraded 0.1.0 -> 0.2.0')
  await until(() => next.report()?.state === 'done', 'done')
  t.equal(next.report()?.reason, 'upgraded 0.1.0 -> 0.2.0')
  await until(() => !existsSync(path.join(dir, 'rollout/tracker-gateway-0.2.0.tar.gz')), 'the archive removed once over')
  t.ok(existsSync(path.join(dir, 'rollout/state.json')), 'the state kept')
  await next.stop()
})

t.test('a failed upgrade, a failed download, a stand-down, a site already on the version', async (t) => {
  const dir = t.testdir({})
  const url = await hq(t)
  const { agent } = agentFor(dir)
  agent.start()
  t.teardown(() => agent.stop())
  agent.handle(command(url))
  await until(() => agent.report()?.state === 'upgrading', 'upgrading')
  result(dir, false, 'upgrade to 0.2.0 failed and was rolled back to 0.1.0: restart loop')
  await until(() => agent.report()?.state === 'failed', 'failed')
  t.match(agent.report()?.reason, /rolled back to 0\.1\.0/)

  agent.handle(command(url, { attempt: 2, sha256: 'f'.repeat(64) }))
  await until(() => agent.report()?.attempt === 2 && agent.report()?.state === 'failed', 'the second attempt fails')
  t.match(agent.report()?.reason, /SHA-256 is \w+, HQ announced f+/)

  const { agent: waiting } = agentFor(mkdtempSync(path.join(tmpdir(), 'agent-')), {
    config: { ...fleetConfigSchema.parse({}).rollout, window: { hours: '00:00-00:01', noActiveOrders: false } },
    now: () => Date.parse('2026-12-02T12:00:00Z'),
  })
  waiting.start()
  t.teardown(() => waiting.stop())
  waiting.handle(command(url))
  await until(() => waiting.report()?.state === 'waiting-for-window', 'waiting')
  waiting.handle(Buffer.from(JSON.stringify({ rolloutId: 3, action: 'stand-down' })))
  await until(() => waiting.report()?.state === 'cancelled', 'stood down')

  let clock = Date.parse('2026-12-02T12:00:00Z')
  const stuckDir = mkdtempSync(path.join(tmpdir(), 'agent-'))
  const { agent: stuck } = agentFor(stuckDir, { now: () => clock, upgradeLimitMs: 60_000 })
  stuck.start()
  t.teardown(() => stuck.stop())
  stuck.handle(command(url))
  await until(() => stuck.report()?.state === 'upgrading', 'queued')
  clock += 61_000
  await until(() => stuck.report()?.state === 'failed', 'nothing ran the upgrade: failed')
  t.match(stuck.report()?.reason, /the queued upgrade never ran \(is tracker-gateway-rollout\.path enabled/)
  t.notOk(existsSync(path.join(stuckDir, 'rollout/request.json')), 'its request withdrawn')

  const { agent: current } = agentFor(mkdtempSync(path.join(tmpdir(), 'agent-')), { runningVersion: '0.2.0' })
  current.start()
  t.teardown(() => current.stop())
  current.handle(command(url))
  await until(() => current.report()?.state === 'done', 'done at once')
  t.equal(current.report()?.reason, 'already runs 0.2.0')
  current.handle(Buffer.from('{"not":"a command"}'))
  t.equal(current.report()?.state, 'done', 'a message that is not a command is ignored')
})

t.test('hours, across midnight and in the site zone', async (t) => {
  const at = (iso: string) => Date.parse(iso)
  t.ok(insideHours('02:00-05:00', 'UTC', at('2026-12-02T02:00:00Z')))
  t.notOk(insideHours('02:00-05:00', 'UTC', at('2026-12-02T05:00:00Z')))
  t.ok(insideHours('23:00-02:00', 'UTC', at('2026-12-02T01:30:00Z')))
  t.notOk(insideHours('23:00-02:00', 'UTC', at('2026-12-02T12:00:00Z')))
  t.ok(insideHours('02:00-05:00', 'Europe/Paris', at('2026-12-02T01:30:00Z')), 'the site zone (UTC+1 in December)')
})

t.test('after a restart, no upgrade before HQ has spoken again: a stand-down sent meanwhile wins', async (t) => {
  const dir = t.testdir({})
  const ranges: string[] = []
  const url = await hq(t, ranges)
  let orders = 1
  const { agent } = agentFor(dir, { config: { ...fleetConfigSchema.parse({}).rollout, window: { noActiveOrders: true } }, activeOrders: () => orders })
  agent.start()
  agent.handle(command(url))
  await until(() => agent.report()?.reason === 'orders are active', 'downloaded, waiting for the window')
  await agent.stop()

  // Started again (a power cut): the window is open now, but HQ has not spoken yet.
  orders = 0
  const { agent: again } = agentFor(dir)
  t.teardown(() => again.stop())
  again.start()
  await until(() => again.report()?.reason === 'waiting to hear from HQ again (the gateway restarted or lost the broker)', 'waiting for HQ')
  t.notOk(existsSync(path.join(dir, 'rollout/request.json')), 'nothing queued')
  // HQ paused the rollout while the gateway was down: the retained command is now a stand-down.
  again.handle(Buffer.from(JSON.stringify({ rolloutId: 3, action: 'stand-down' })))
  await until(() => again.report()?.state === 'cancelled', 'stood down')
  t.notOk(existsSync(path.join(dir, 'rollout/request.json')), 'never queued')
  t.same(readFileSync(path.join(dir, 'rollout/tracker-gateway-0.2.0.tar.gz')), archive, 'the download kept for a resume')

  // The resume: a new attempt, the archive checked again and not downloaded again.
  const before = ranges.length
  again.handle(command(url, { attempt: 2 }))
  await until(() => again.report()?.state === 'upgrading' && existsSync(path.join(dir, 'rollout/request.json')), 'upgrading, queued')
  t.equal(ranges.length, before, 'no byte downloaded again')
  t.match(JSON.parse(readFileSync(path.join(dir, 'rollout/request.json'), 'utf8')), { rolloutId: 3, attempt: 2 })

  // The same after a lost broker connection.
  const other = mkdtempSync(path.join(tmpdir(), 'agent-'))
  const { agent: cut } = agentFor(other, { config: { ...fleetConfigSchema.parse({}).rollout, window: { noActiveOrders: true } }, activeOrders: () => orders })
  t.teardown(() => cut.stop())
  orders = 1
  cut.start()
  cut.handle(command(url))
  await until(() => cut.report()?.reason === 'orders are active', 'waiting for the window')
  cut.disconnected()
  orders = 0
  await until(() => cut.report()?.reason === 'waiting to hear from HQ again (the gateway restarted or lost the broker)', 'waiting for HQ again')
  cut.handle(command(url))
  await until(() => cut.report()?.state === 'upgrading' && existsSync(path.join(other, 'rollout/request.json')), 'the same command heard again: upgrading')
  await cut.stop()
  rmSync(other, { recursive: true, force: true })
})

t.test('a .part whose last write was torn (a power cut) is downloaded again from the start', async (t) => {
  const dir = t.testdir({})
  const ranges: string[] = []
  const url = await hq(t, ranges)
  mkdirSync(path.join(dir, 'rollout'), { mode: 0o700 })
  // Half the archive, then bytes that are not its own.
  writeFileSync(path.join(dir, 'rollout/tracker-gateway-0.2.0.tar.gz.part'), Buffer.concat([archive.subarray(0, 20_000), Buffer.alloc(1000)]), { mode: 0o600 })
  const { agent } = agentFor(dir, { config: { ...fleetConfigSchema.parse({}).rollout, bandwidthKiBps: 20 } })
  t.teardown(() => agent.stop())
  agent.start()
  agent.handle(command(url))
  await until(() => agent.report()?.state === 'upgrading' && existsSync(path.join(dir, 'rollout/request.json')), 'downloaded and queued')
  t.equal(ranges[0], 'bytes=21000-41479', 'it resumed from the .part first')
  t.equal(
    ranges.find((range, i) => i > 0 && range.startsWith('bytes=0-')),
    'bytes=0-20479',
    'then fetched it again from the start',
  )
  t.same(readFileSync(path.join(dir, 'rollout/tracker-gateway-0.2.0.tar.gz')), archive, 'the announced bytes')
})

t.test('a line cut is retried, the .part kept; one cut longer than downloadRetryMs fails', async (t) => {
  const dir = t.testdir({})
  const ranges: string[] = []
  const line = { refuse: 3 }
  const url = await hq(t, ranges, line)
  let now = Date.parse('2026-12-02T12:00:00Z')
  const { agent } = agentFor(dir, { now: () => now })
  t.teardown(() => agent.stop())
  agent.start()
  agent.handle(command(url))
  await until(() => agent.report()?.state === 'upgrading' && existsSync(path.join(dir, 'rollout/request.json')), 'downloaded after the cut')
  t.equal(line.refuse, 0, 'three requests were cut')
  t.same(readFileSync(path.join(dir, 'rollout/tracker-gateway-0.2.0.tar.gz')), archive)

  const other = mkdtempSync(path.join(tmpdir(), 'agent-'))
  line.refuse = Number.POSITIVE_INFINITY
  const { agent: away } = agentFor(other, { now: () => now, downloadRetryMs: 60_000 })
  t.teardown(() => away.stop())
  away.start()
  away.handle(command(url))
  await until(() => /^retrying: cannot download /.test(String(away.report()?.reason)), 'retrying')
  t.equal(away.report()?.state, 'downloading', 'still downloading while it retries')
  now += 61_000
  await until(() => away.report()?.state === 'failed', 'failed once the line stayed cut too long')
  t.match(away.report()?.reason, /cannot download .*\(no progress for 1 min\)/)
  await away.stop()
  rmSync(other, { recursive: true, force: true })
})

t.test('killed after keeping upgrading and before queuing: queued at the restart, unless root took it', async (t) => {
  const dir = t.testdir({})
  const url = await hq(t)
  const { agent } = agentFor(dir)
  agent.start()
  agent.handle(command(url))
  await until(() => agent.report()?.state === 'upgrading' && existsSync(path.join(dir, 'rollout/request.json')), 'queued')
  await agent.stop()
  rmSync(path.join(dir, 'rollout/request.json'))
  const { agent: again } = agentFor(dir)
  t.teardown(() => again.stop())
  again.start()
  await until(() => existsSync(path.join(dir, 'rollout/request.json')), 'queued again')
  t.match(JSON.parse(readFileSync(path.join(dir, 'rollout/request.json'), 'utf8')), { rolloutId: 3, attempt: 1 })
  await again.stop()

  // Taken by root (its record says so): not queued again.
  rmSync(path.join(dir, 'rollout/request.json'))
  writeFileSync(path.join(dir, 'rollout-taken.json'), JSON.stringify({ rolloutId: 3, attempt: 1, version: '0.2.0', takenAt: new Date().toISOString() }))
  const { agent: third } = agentFor(dir)
  t.teardown(() => third.stop())
  third.start()
  result(dir, true, 'upgraded 0.1.0 -> 0.2.0')
  await until(() => third.report()?.state === 'done', 'done from the result')
  t.notOk(existsSync(path.join(dir, 'rollout/request.json')), 'never queued twice')
})
