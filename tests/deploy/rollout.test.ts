// Issue 46's done-when for a rollout from headquarters: HQ over real PostgreSQL and a real
// Mosquitto, serving HTTPS with a certificate from a throwaway chain CA that the sites trust
// (fleet.rollout.ca), three sites each installed by deploy/install.sh into a throwaway root and run
// by the stand-in service manager (tests/helpers/upgrade-box.ts; it also plays the
// tracker-gateway-rollout.path unit that runs `gateway upgrade --queued`). A good release
// rolls out in two waves (the canary, then the rest) and every site ends on it; a release that
// crashes at start halts at the canary, which rolls itself back, the other sites untouched,
// and an alert is raised.
import { mkdirSync, readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t from 'tap'
import { freePort } from '../../bench/free-port.ts'
import { hqConfigSchema } from '../../lib/hq/config.ts'
import { HqTokens } from '../../lib/hq/tokens.ts'
import { startHq } from '../../runtime/hq/main.ts'
import { caRequest } from '../helpers/ca-request.ts'
import { memoryLogger } from '../helpers/memory-logger.ts'
import { startPostgres } from '../helpers/postgres.ts'
import { until } from '../helpers/until.ts'
import { installBox, installedVersion, keyPair, makeRelease, waitAnswers, type Box } from '../helpers/upgrade-box.ts'
import { makePki } from '../lib/fleet/certs.ts'
import { startBroker } from '../lib/fleet/mosquitto.ts'
import { freshDatabase } from '../lib/hq/fixtures.ts'

const prefix = 'chain'
const upgradeMs = 8 * 60_000

t.test('a good release in two waves, then a bad one halts at the canary', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'rollout-'))
  t.teardown(() => (process.env.KEEP_UPGRADE_DIR ? console.error(dir) : rm(dir, { recursive: true, force: true })))
  const pg = await startPostgres({ fast: true })
  t.teardown(() => pg.destroy())
  const broker = await startBroker({ dir, lines: ['max_inflight_messages 1000', 'max_queued_messages 0'] })
  t.teardown(() => broker.stop())
  const trusted = keyPair(dir, 'chain')
  const { url: postgresUrl, db } = await freshDatabase(pg)
  t.teardown(() => db.close())
  mkdirSync(path.join(dir, 'pki'))
  const pki = makePki(path.join(dir, 'pki'))
  const ca = readFileSync(pki.ca)
  const port = await freePort()
  const base = `https://127.0.0.1:${port}`
  const hq = await startHq({
    config: hqConfigSchema.parse({
      postgresUrl,
      broker: { url: broker.url },
      topicPrefix: prefix,
      instanceId: 'a',
      port,
      host: '127.0.0.1',
      batchWaitMs: 5,
      tls: { cert: pki.serverCert, key: pki.serverKey },
      releases: { keys: [trusted.publicFile], publicUrl: base },
      rollout: { checkIntervalMs: 250 },
      alerts: { checkIntervalMs: 250 },
    }),
    log: memoryLogger('error').log,
  })
  t.teardown(() => hq.stop())
  const admin = (await new HqTokens(db).create('ops', 'admin')).token
  const api = async (method: string, route: string, body?: unknown) =>
    (
      await caRequest(`${base}${route}`, {
        ca,
        method,
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    ).json()
  const upload = async (archive: string) =>
    (
      await caRequest(`${base}/api/hq/releases`, {
        ca,
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'release-signature': readFileSync(`${archive}.sig`).toString('base64') },
        body: readFileSync(archive),
      })
    ).json()

  // The three installs at once (install.sh waits on the disk as much as on the processor).
  const boxes: Box[] = await Promise.all(
    ['site-1', 'site-2', 'site-3'].map(async (site) => {
      const box = await installBox(path.join(dir, site), trusted.publicFile, {
        config: { fleet: { enabled: true, brokerUrl: broker.url, siteId: site, topicPrefix: prefix, rollout: { bandwidthKiBps: 16_384, ca: pki.ca } } },
        rolloutArgs: ['--health-timeout', '90', '--health-stable', '1'],
      })
      t.teardown(() => box.close())
      return box
    }),
  )
  await until(async () => (await api('GET', '/api/hq/sites')).sites?.filter((s: any) => s.connection === 'online').length === 3, 'three sites online at HQ')
  const versions = () => Promise.all(boxes.map((box) => waitAnswers(box)))
  t.same(await versions(), [installedVersion, installedVersion, installedVersion])

  await t.test('a good release: the canary, then the rest; every site ends on it', async (t) => {
    const release = await upload(makeRelease(dir, '0.2.0', { privatePem: trusted.privatePem }))
    t.match(release, { status: 201, release: { version: '0.2.0' } })
    const started = await api('POST', '/api/hq/rollouts', { release: release.release.id, canary: ['site-1'], soakMinutes: 0 })
    t.match(started, { status: 201, rollout: { waves: [['site-1'], ['site-2', 'site-3']] } })
    const id = started.rollout.id
    const rollout = async () => (await api('GET', `/api/hq/rollouts/${id}`)).rollout
    // While the canary upgrades, the other sites are not told.
    await until(async () => (await rollout()).sites.find((s: any) => s.siteId === 'site-1').state === 'done', 'the canary upgraded', upgradeMs)
    t.equal(await waitAnswers(boxes[0]!), '0.2.0', 'the canary runs 0.2.0')
    await until(async () => (await rollout()).state === 'done', 'the rollout done', upgradeMs)
    t.same(await versions(), ['0.2.0', '0.2.0', '0.2.0'], 'every site on the release')
    const sites = (await api('GET', '/api/hq/sites')).sites
    await until(async () => (await api('GET', '/api/hq/sites')).sites.every((s: any) => s.version === '0.2.0'), 'HQ sees every site on 0.2.0')
    t.same(
      sites.map((s: any) => s.rollout?.state),
      ['done', 'done', 'done'],
    )
  })

  await t.test('a release that crashes at start: halted at the canary, rolled back, the others untouched, alerted', async (t) => {
    const release = await upload(makeRelease(dir, '0.3.0', { privatePem: trusted.privatePem, crashAtStart: true }))
    t.match(release, { status: 201, release: { version: '0.3.0' } })
    const pids = boxes.map((box) => box.service.mainPid)
    const started = await api('POST', '/api/hq/rollouts', { release: release.release.id, canaryCount: 1, soakMinutes: 0 })
    const id = started.rollout.id
    t.same(started.rollout.waves, [['site-1'], ['site-2', 'site-3']])
    await until(async () => (await api('GET', `/api/hq/rollouts/${id}`)).rollout.state === 'halted', 'the rollout halted', upgradeMs)
    const halted = (await api('GET', `/api/hq/rollouts/${id}`)).rollout
    t.match(halted.reason, /site-1: upgrade to 0\.3\.0 failed and was rolled back to 0\.2\.0: 0\.3\.0 failed its health check/)
    t.match(
      halted.sites.map((s: any) => [s.siteId, s.state]),
      [
        ['site-1', 'failed'],
        ['site-2', 'pending'],
        ['site-3', 'pending'],
      ],
    )
    t.equal(await waitAnswers(boxes[0]!), '0.2.0', 'the canary rolled itself back')
    t.same(await versions(), ['0.2.0', '0.2.0', '0.2.0'])
    t.same(
      boxes.slice(1).map((box) => box.service.mainPid),
      pids.slice(1),
      'the other sites were never restarted',
    )
    await until(async () => (await api('GET', '/api/hq/alerts')).alerts.some((a: any) => a.kind === 'rollout'), 'the rollout alert')
    t.match(
      (await api('GET', '/api/hq/alerts')).alerts.find((a: any) => a.kind === 'rollout'),
      { siteId: 'site-1', detail: /halted: the upgrade failed: .*rolled back/ },
    )
  })
})
