// `gateway hq token create|list|revoke` against a real PostgreSQL, the errors of `gateway hq`
// itself, and a running `gateway hq` keeping nextTick's fast path, through the real CLI.
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { HqTokens } from '../../../lib/hq/tokens.ts'
import { openDatabase } from '../../../lib/store/postgres.ts'
import { runCli } from '../../helpers/process.ts'
import { startPostgres } from '../../helpers/postgres.ts'
import { tickShapeAfterCollections } from '../../helpers/tick-shape-run.ts'
import { startBroker } from '../../lib/fleet/mosquitto.ts'

const pg = await startPostgres({ fast: true })
t.teardown(() => pg.destroy())

t.test('HQ tokens from the command line', async (t) => {
  const url = await pg.createDatabase('hq_cli')
  const dir = t.testdir()
  const config = path.join(dir, 'hq.config.json')
  writeFileSync(config, JSON.stringify({ postgresUrl: url, broker: { url: 'mqtt://127.0.0.1:1' }, instanceId: 'cli' }))
  const created = await runCli(['hq', 'token', 'create', 'ops manager', '--config', config])
  t.equal(created.code, 0, created.stderr)
  const token = created.stdout.trim()
  t.match(token, /^hq_[0-9a-f]{48}$/)
  const db = openDatabase(url, { max: 1 })
  t.teardown(() => db.close())
  t.match(await new HqTokens(db).verify(token), { name: 'ops manager' }, 'the printed token is accepted')
  const listed = await runCli(['hq', 'token', 'list', '--config', config])
  t.match(listed.stdout, new RegExp(`^${token.slice(3, 11)}  ops manager  created .* last used `))
  t.notMatch(listed.stdout, token, 'never the token itself')
  const revoked = await runCli(['hq', 'token', 'revoke', 'ops manager', '--config', config])
  t.match(revoked, { code: 0, stdout: /revoked 1 token/ })
  t.equal(await new HqTokens(db).verify(token), undefined, 'refused once revoked')
  t.match(await runCli(['hq', 'token', 'revoke', 'ops manager', '--config', config]), { code: 1, stdout: /no token named/ })
  t.match(await runCli(['hq', 'token', 'list', '--config', config]), { code: 0, stdout: /no HQ tokens/ })
  t.match(await runCli(['hq', 'token', 'create', 'bad/name', '--config', config]), { code: 1, stderr: /token name/ })
  t.match(await runCli(['hq', 'token', '--config', config]), { code: 1, stderr: /usage/ })
  t.match(await runCli(['hq', 'frobnicate', '--config', config]), { code: 1, stderr: /unknown subcommand "frobnicate"/ })
})

t.test('gateway hq retire: an instance taken out of service is no longer alerted on', async (t) => {
  const url = await pg.createDatabase('hq_cli_retire')
  const dir = t.testdir()
  const config = path.join(dir, 'hq.config.json')
  writeFileSync(config, JSON.stringify({ postgresUrl: url, broker: { url: 'mqtt://127.0.0.1:1' }, instanceId: 'cli' }))
  const db = openDatabase(url, { max: 1 })
  t.teardown(() => db.close())
  t.match(await runCli(['hq', 'retire', 'old', '--config', config]), { code: 1, stdout: /no instance "old"/ })
  const { heartbeat } = await import('../../../lib/hq/instances.ts')
  await heartbeat(db, 'old')
  await db.query(`UPDATE hq_instances SET seen_at = now() - interval '1 hour'`)
  const { evaluateAlerts } = await import('../../../lib/hq/alerts.ts')
  const alertConfig = { offlineMinutes: 10, radioDownMinutes: 5, backlogThreshold: 100, webhooks: [], instanceSilentSeconds: 60 }
  const { raised } = await db.transaction((tx) => evaluateAlerts(tx, alertConfig))
  t.match(raised, [{ siteId: 'hq-old', kind: 'instance', detail: /HQ instance old has not acknowledged since/ }], 'a silent instance is alerted')
  t.match(await runCli(['hq', 'retire', 'old', '--config', config]), { code: 0, stdout: /instance old retired/ })
  const { cleared } = await db.transaction((tx) => evaluateAlerts(tx, alertConfig))
  t.match(cleared, [{ siteId: 'hq-old', kind: 'instance' }], 'retired: its alert clears')
  t.match(await runCli(['hq', 'retire', '--config', config]), { code: 1, stderr: /usage/ })
})

t.test('a missing or wrong hq.config.json says what is wrong', async (t) => {
  const dir = t.testdir({ 'bad.json': '{"postgresUrl":"mysql://x","broker":{"url":"mqtt://h"},"instanceId":"a","extra":1}', 'broken.json': '{' })
  t.match(await runCli(['hq', '--config', path.join(dir, 'none.json')]), { code: 1, stderr: /config file not found/ })
  const bad = await runCli(['hq', '--config', path.join(dir, 'bad.json')])
  t.match(bad.stderr, /"postgresUrl": must be a postgres:\/\/ URL/)
  t.match(bad.stderr, /unknown key "extra"/)
  t.match(await runCli(['hq', '--config', path.join(dir, 'broken.json')]), { code: 1, stderr: /not valid JSON/ })
  t.match(await runCli(['hq'], { HQ_CONFIG: '' }, { cwd: dir }), { code: 1 })
  t.match(await runCli(['--help']), { stdout: /hq token create <name>/ })
})

t.test("a running HQ keeps nextTick's literal sites monomorphic through memory-reducing collections", async (t) => {
  // What V8's memory reducer does to a service gone idle after a rush, the probe does at once
  // (tests/helpers/tick-shape-probe.ts); without the entry hq-commands.ts keeps, the sites go
  // megamorphic (tests/runtime/wiring/tick-shape.test.ts shows that part).
  const dir = t.testdir()
  const broker = await startBroker({ dir })
  t.teardown(() => broker.stop())
  const config = path.join(dir, 'hq.config.json')
  writeFileSync(
    config,
    JSON.stringify({ port: 0, host: '127.0.0.1', postgresUrl: await pg.createDatabase('hq_tick_shape'), broker: { url: broker.url }, instanceId: 'tick' }),
  )
  const { states } = await tickShapeAfterCollections(t, ['hq', '--config', config], 'hq ingest: subscribed', dir)
  t.ok(states.length >= 2, `nextTick still builds its entry as a literal with computed keys: ${states}`)
  t.same(new Set(states), new Set(['MONOMORPHIC']), String(states))
})
