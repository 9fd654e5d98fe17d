// Issue 46's "a site offline during the rollout catches up when it returns (or is skipped, as
// the operator chose)", end to end: HQ over real PostgreSQL and a real Mosquitto, three sites
// each a process with the gateway's real fleet bridge and rollout agent
// (tests/helpers/rollout-site.ts; root's `gateway upgrade --queued` played by the test: the
// upgrade itself is proven on installed boxes by tests/deploy/rollout.test.ts and
// upgrade-kill.test.ts). What is shown here is the protocol: the status a stopped gateway
// leaves (a clean stop) or the broker leaves for it (its last will, after a kill), the
// retained command, the site's download from HQ, and HQ's decisions.
// - catch-up: a site stopped before its wave starts is told anyway; the wave, its soak and
//   the last wave pass without it, the rollout stays running; started again, it takes the
//   retained command, downloads, upgrades, and the rollout is done (its command cleared);
// - skip: a site killed before its wave starts is skipped; the rollout is done without it;
//   started again, it is told nothing and stays on its version.
import { generateKeyPairSync, createHash, randomBytes } from 'node:crypto'
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t, { type Test } from 'tap'
import { hqConfigSchema } from '../../../lib/hq/config.ts'
import { HqTokens } from '../../../lib/hq/tokens.ts'
import { signRelease } from '../../../lib/release/signature.ts'
import { startHq } from '../../../runtime/hq/main.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { startPostgres } from '../../helpers/postgres.ts'
import { rolloutSite, type RolloutSite } from '../../helpers/rollout-site.ts'
import { until } from '../../helpers/until.ts'
import { freePort, startBroker } from '../../lib/fleet/mosquitto.ts'
import { freshDatabase, hqConfig, prefix, publisher } from '../../lib/hq/fixtures.ts'
import { brokerLines } from './fixtures.ts'

t.test('an offline site catches up when it returns, or is skipped, as the operator chose', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'rollout-offline-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const pg = await startPostgres({ fast: true })
  t.teardown(() => pg.destroy())
  const broker = await startBroker({ dir, lines: brokerLines })
  t.teardown(() => broker.stop())
  const { url: postgresUrl, db } = await freshDatabase(pg)
  t.teardown(() => db.close())
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  const keyFile = path.join(dir, 'chain.pub')
  writeFileSync(keyFile, publicKey.export({ type: 'spki', format: 'pem' }))
  const port = await freePort()
  const hq = await startHq({
    config: hqConfig({
      postgresUrl,
      brokerUrl: broker.url,
      instanceId: 'a',
      port,
      host: '127.0.0.1',
      releases: { keys: [keyFile], publicUrl: `http://127.0.0.1:${port}`, maxBytes: 8_000_000 },
      rollout: { checkIntervalMs: 100 },
      alerts: { ...hqConfigSchema.parse({ postgresUrl: 'postgres://x', broker: { url: 'mqtt://x' }, instanceId: 'x' }).alerts, checkIntervalMs: 100 },
    }),
    log: memoryLogger('error').log,
  })
  t.teardown(() => hq.stop())
  const admin = (await new HqTokens(db).create('ops', 'admin')).token
  const api = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`http://127.0.0.1:${port}${route}`, {
      method,
      headers: { authorization: `Bearer ${admin}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return (await response.json()) as any
  }

  // Releases: bytes HQ serves and signs off (HQ checks the signature, the site the checksum).
  const releases = new Map<string, { archive: Buffer; sha256: string; signature: unknown }>()
  const upload = async (t: Test, version: string) => {
    const archive = randomBytes(3_000_000)
    const sha256 = createHash('sha256').update(archive).digest('hex')
    const signature = signRelease(privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, `tracker-gateway-${version}.tar.gz`, version, sha256)
    releases.set(version, { archive, sha256, signature })
    const response = await fetch(`http://127.0.0.1:${port}/api/hq/releases`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'release-signature': Buffer.from(JSON.stringify(signature)).toString('base64') },
      body: new Uint8Array(archive),
    })
    const body = (await response.json()) as any
    t.equal(response.status, 201, `release ${version} stored`)
    return body.release.id as number
  }

  const sites: RolloutSite[] = ['site-1', 'site-2', 'site-3'].map((siteId) =>
    rolloutSite({ siteId, version: '0.1.0', brokerUrl: broker.url, topicPrefix: prefix, dir: path.join(dir, siteId) }, (version) => releases.get(version)!),
  )
  t.teardown(() => Promise.all(sites.map((site) => site.close())))
  await Promise.all(sites.map((site) => site.start()))
  const hqSite = async (siteId: string) => ((await api('GET', '/api/hq/sites')).sites as any[]).find((s) => s.siteId === siteId)
  await until(
    async () => ((await api('GET', '/api/hq/sites')).sites as any[] | undefined)?.filter((s) => s.connection === 'online').length === 3,
    'three sites online at HQ',
  )
  const [site1, site2, site3] = sites as [RolloutSite, RolloutSite, RolloutSite]

  // What the broker holds for a site on its rollout topic (a subscriber gets the retained message at once).
  const retained = async (siteId: string) => {
    const client = await publisher(broker.url, `look-${siteId}-${Date.now()}`)
    try {
      const seen: Buffer[] = []
      client.on('message', (_topic, payload, packet) => {
        if (packet.retain) seen.push(payload)
      })
      await client.subscribeAsync(`${prefix}/${siteId}/rollout`, { qos: 1 })
      // The broker sends a retained message before the subscription's acknowledgement is handled here.
      await client.publishAsync(`${prefix}/probe`, 'x', { qos: 1 })
      return seen.length && seen[0]!.length ? (JSON.parse(seen[0]!.toString()) as Record<string, unknown>) : null
    } finally {
      await client.endAsync(true)
    }
  }

  await t.test('catch-up: told while stopped, it upgrades once started again, and only then is the rollout done', async (t) => {
    const release = await upload(t, '0.2.0')
    await site2.stop()
    await until(async () => (await hqSite('site-2')).connection === 'offline', 'HQ sees site-2 offline (its clean stop)')
    const started = await api('POST', '/api/hq/rollouts', { release, canary: ['site-1'], soakMinutes: 0.05, offline: 'catch-up' })
    t.match(started, { status: 201, rollout: { waves: [['site-1'], ['site-2', 'site-3']], offline: 'catch-up', soakSeconds: 3 } })
    const id = started.rollout.id as number
    const rollout = async () => (await api('GET', `/api/hq/rollouts/${id}`)).rollout
    const state = async (siteId: string) => (await rollout()).sites.find((s: any) => s.siteId === siteId)
    await until(async () => (await state('site-3')).state === 'done', 'the canary, its soak, then site-3 upgraded')
    t.equal(site1.version(), '0.2.0')
    t.equal(site3.version(), '0.2.0')
    t.match(await state('site-2'), { state: 'told', online: false, version: '0.1.0' }, 'site-2 told while offline')
    t.match(await retained('site-2'), { rolloutId: id, attempt: 1, action: 'upgrade', version: '0.2.0' }, 'its command waits on the broker, retained')
    // The last wave's soak over, the rollout still waits for site-2 (rounds run now, not by a guessed sleep).
    await until(async () => {
      const now = await rollout()
      return now.waveDoneAt !== null && Date.parse(now.waveDoneAt) + now.soakSeconds * 1000 < Date.now()
    }, 'the last wave soaked')
    await hq.driveRollout()
    await hq.driveRollout()
    t.match(await rollout(), { state: 'running', currentWave: 1 }, 'not done without site-2')
    t.same(site2.upgrades, [], 'site-2 did nothing while stopped')

    await site2.start()
    await until(async () => (await rollout()).state === 'done', 'the rollout done once site-2 caught up')
    t.equal(site2.version(), '0.2.0', 'site-2 upgraded when it came back')
    t.same(
      site2.upgrades,
      [{ version: '0.2.0', sha256: releases.get('0.2.0')!.sha256, signature: releases.get('0.2.0')!.signature }],
      'with the archive and signature HQ announced',
    )
    t.match(await state('site-2'), { state: 'done', attempt: 1 })
    await until(async () => (await hqSite('site-2')).version === '0.2.0', 'HQ sees site-2 on 0.2.0')
    await until(async () => (await retained('site-2')) === null, "the done rollout's commands cleared from the broker")
    t.same(
      readdirSync(path.join(site2.dataDir, 'rollout')).filter((name) => name.startsWith('tracker-gateway-')),
      [],
      'the archive removed once upgraded',
    )
  })

  await t.test('skip: killed before its wave starts, it is skipped, and not upgraded when it returns', async (t) => {
    const release = await upload(t, '0.3.0')
    // A kill, not a clean stop: the broker publishes its last will.
    await site3.kill()
    await until(async () => (await hqSite('site-3')).connection === 'offline', 'HQ sees site-3 offline (its last will)')
    const started = await api('POST', '/api/hq/rollouts', { release, canary: ['site-1'], soakMinutes: 0, offline: 'skip' })
    t.match(started, { status: 201, rollout: { offline: 'skip' } })
    const id = started.rollout.id as number
    const rollout = async () => (await api('GET', `/api/hq/rollouts/${id}`)).rollout
    await until(async () => (await rollout()).state === 'done', 'the rollout done without site-3')
    t.match(
      (await rollout()).sites.map((s: any) => [s.siteId, s.state, s.reason]),
      [
        ['site-1', 'done', /upgraded 0\.2\.0 -> 0\.3\.0/],
        ['site-2', 'done', /upgraded 0\.2\.0 -> 0\.3\.0/],
        ['site-3', 'skipped', 'offline when its wave started'],
      ],
    )
    t.equal(await retained('site-3'), null, 'nothing waits for site-3 on the broker')
    t.match(await hqSite('site-3'), { rollout: { id, state: 'skipped' } }, 'the board shows it skipped')

    await site3.start()
    await until(async () => (await hqSite('site-3')).connection === 'online', 'site-3 back')
    // Its status is published at once when it connects, and again each second: two more, and still nothing began.
    const seenAt = (await hqSite('site-3')).statusAt
    await until(async () => {
      const now = await hqSite('site-3')
      return now.statusAt !== seenAt && Date.parse(now.statusAt) - Date.parse(seenAt) >= 1500
    }, 'site-3 reported again')
    t.equal(site3.version(), '0.2.0', 'site-3 stays on its version')
    t.equal(site3.upgrades.length, 1, 'no upgrade since the first rollout')
    t.same(
      readdirSync(path.join(site3.dataDir, 'rollout')).filter((name) => name.startsWith('tracker-gateway-')),
      [],
      'nothing downloaded',
    )
    t.match(
      (await rollout()).sites.find((s: any) => s.siteId === 'site-3'),
      { state: 'skipped' },
    )
  })
})
