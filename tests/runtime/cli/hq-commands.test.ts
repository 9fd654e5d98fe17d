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
  t.match(listed.stdout, new RegExp(`^${token.slice(3, 11)}  ops manager  read  created .* last used `))
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

t.test('releases and rollouts from the command line; admin tokens', async (t) => {
  const url = await pg.createDatabase('hq_cli_rollout')
  const dir = t.testdir()
  const { generateKeyPairSync, createHash } = await import('node:crypto')
  const { signRelease } = await import('../../../lib/release/signature.ts')
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  writeFileSync(path.join(dir, 'chain.pub'), publicKey.export({ type: 'spki', format: 'pem' }))
  const config = path.join(dir, 'hq.config.json')
  // releases.keys relative to the config file.
  writeFileSync(config, JSON.stringify({ postgresUrl: url, broker: { url: 'mqtt://127.0.0.1:1' }, instanceId: 'cli', releases: { keys: ['chain.pub'] } }))
  const archive = path.join(dir, 'tracker-gateway-0.2.0.tar.gz')
  const bytes = Buffer.from('not really a tarball')
  writeFileSync(archive, bytes)
  const sha256 = createHash('sha256').update(bytes).digest('hex')
  writeFileSync(`${archive}.sig`, JSON.stringify(signRelease(privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, 'x', '0.2.0', sha256)))
  const admin = await runCli(['hq', 'token', 'create', 'ops', '--scope', 'admin', '--config', config])
  t.equal(admin.code, 0, admin.stderr)
  t.match(await runCli(['hq', 'token', 'list', '--config', config]), { stdout: / {2}ops {2}admin {2}created/ })
  t.match(await runCli(['hq', 'token', 'create', 'x', '--scope', 'root', '--config', config]), { code: 1, stderr: /--scope read or admin/ })
  t.match(await runCli(['hq', 'release', 'upload', archive, '--config', config]), {
    code: 0,
    stdout: new RegExp(`stored: release 1, version 0\\.2\\.0, sha256 ${sha256}`),
  })
  t.match(await runCli(['hq', 'release', 'list', '--config', config]), { stdout: /^1 {2}0\.2\.0 {2}20 bytes/ })
  const db = openDatabase(url, { max: 1 })
  t.teardown(() => db.close())
  await db.query(`INSERT INTO hq_sites (site_id, online, version) VALUES ('a', true, '0.1.0'), ('b', true, '0.1.0'), ('c', false, '0.1.0')`)
  const started = await runCli(['hq', 'rollout', 'start', '1', '--canary', 'b', '--percent', '50', '--soak', '0', '--offline', 'skip', '--config', config])
  t.equal(started.code, 0, started.stderr)
  t.match(
    started.stdout,
    /^rollout 1: 0\.2\.0 running, wave 1 of 3, soak 0 min, offline sites skip\n {2}wave 1 {2}b {2}pending {2}runs 0\.1\.0\n {2}wave 2 {2}a {2}pending/,
  )
  t.match(await runCli(['hq', 'rollout', 'pause', '1', '--config', config]), { code: 0, stdout: /rollout 1: 0\.2\.0 paused/ })
  t.match(await runCli(['hq', 'rollout', 'pause', '1', '--config', config]), { code: 1, stderr: /only a running rollout can be paused/ })
  t.match(await runCli(['hq', 'rollout', 'resume', '1', '--config', config]), { code: 0, stdout: /running/ })
  t.match(await runCli(['hq', 'rollout', 'cancel', '1', '--config', config]), { code: 0, stdout: /cancelled \(cancelled by the operator\)/ })
  t.match(await runCli(['hq', 'rollout', 'list', '--config', config]), { stdout: /^1 {2}0\.2\.0 {2}cancelled {2}wave 1\/3/ })
  t.match(await runCli(['hq', 'rollout', 'show', '9', '--config', config]), { code: 1, stderr: /no rollout 9/ })
  t.match(await runCli(['hq', 'rollout', 'start', '1', '--canary', 'zz', '--config', config]), { code: 1, stderr: /canary site "zz"/ })
  t.match(await runCli(['hq', 'rollout', '--config', config]), { code: 1, stderr: /usage/ })
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
