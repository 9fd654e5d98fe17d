// HQ's side of a rollout over real PostgreSQL and Mosquitto, the sites played by MQTT clients
// that publish the status a gateway would: a release uploaded (refused when not signed by a
// release key of hq.config.json), its archive served by range to the holders of its secret,
// a rollout in two waves told on the sites' rollout topics, a failure that halts it and
// raises an alert, and pause, resume and cancel; admin scope needed for every change.
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t from 'tap'
import { HqTokens } from '../../../lib/hq/tokens.ts'
import { signRelease } from '../../../lib/release/signature.ts'
import { startPostgres } from '../../helpers/postgres.ts'
import { until } from '../../helpers/until.ts'
import { prefix, publisher } from '../../lib/hq/fixtures.ts'
import { brokerLines } from './fixtures.ts'
import { startBroker } from '../../lib/fleet/mosquitto.ts'
import { freshDatabase, hqConfig } from '../../lib/hq/fixtures.ts'
import { startHq } from '../../../runtime/hq/main.ts'
import { hqConfigSchema } from '../../../lib/hq/config.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'

const pg = await startPostgres({ fast: true })
t.teardown(() => pg.destroy())

function keyFiles(dir: string, name: string) {
  mkdirSync(dir, { recursive: true })
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  const file = path.join(dir, `${name}.pub`)
  writeFileSync(file, publicKey.export({ type: 'spki', format: 'pem' }))
  return { privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, file }
}

function release(version: string, privatePem: string, size = 2_500_000) {
  const archive = randomBytes(size)
  const sha256 = createHash('sha256').update(archive).digest('hex')
  const signature = Buffer.from(JSON.stringify(signRelease(privatePem, `tracker-gateway-${version}.tar.gz`, version, sha256))).toString('base64')
  return { archive, sha256, signature }
}

t.test('upload, download by range, two waves, halt and alert, pause, resume, cancel', async (t) => {
  // Not t.testdir(): startChain makes that one afresh for its broker.
  const dir = mkdtempSync(path.join(tmpdir(), 'hq-keys-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const chainKey = keyFiles(dir, 'chain')
  const stranger = keyFiles(dir, 'stranger')
  // One instance (startChain's second one listens under another prefix: it would tell no site).
  const broker = await startBroker({ dir: t.testdir(), lines: brokerLines })
  t.teardown(() => broker.stop())
  const { url: postgresUrl, db } = await freshDatabase(pg)
  t.teardown(() => db.close())
  const startInstance = async (instanceId: string) => {
    const instance = await startHq({
      config: hqConfig({
        postgresUrl,
        brokerUrl: broker.url,
        instanceId,
        port: 0,
        host: '127.0.0.1',
        releases: { keys: [chainKey.file], publicUrl: 'http://hq.example:8100', maxBytes: 4_000_000 },
        rollout: { checkIntervalMs: 100 },
        alerts: { ...hqConfigSchema.parse({ postgresUrl: 'postgres://x', broker: { url: 'mqtt://x' }, instanceId: 'x' }).alerts, checkIntervalMs: 100 },
      }),
      log: memoryLogger('error').log,
    })
    await instance.ingest.connected()
    return instance
  }
  let hq = await startInstance('a')
  t.teardown(() => hq.stop())
  const token = (await new HqTokens(db).create('reader')).token
  const chain = { broker, token }
  let base = `http://127.0.0.1:${hq.port}`
  const admin = (await new HqTokens(db).create('ops', 'admin')).token
  const call = async (method: string, route: string, body?: unknown, token = admin, headers: Record<string, string> = {}) => {
    const response = await fetch(`${base}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return { status: response.status, body: (await response.json()) as any }
  }
  const upload = async (archive: Buffer, signature: string, token = admin) => {
    const response = await fetch(`${base}/api/hq/releases`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/gzip', 'release-signature': signature },
      body: new Uint8Array(archive),
    })
    return { status: response.status, body: (await response.json()) as any }
  }

  // Three sites, each an MQTT client publishing its status and reading its rollout topic.
  const sites = ['s1', 's2', 's3']
  const told = new Map<string, any[]>()
  const clients = await Promise.all(sites.map((site) => publisher(chain.broker.url, `site-${site}`)))
  t.teardown(() => Promise.all(clients.map((client) => client.endAsync(true))))
  const startedAt = new Date().toISOString()
  const status = (index: number, online: boolean, rollout?: Record<string, unknown>, version = '0.1.0') =>
    clients[index]!.publishAsync(
      `${prefix}/${sites[index]}/status`,
      JSON.stringify({ siteId: sites[index], online, version, startedAt, at: new Date().toISOString(), backlog: 0, ...(rollout ? { rollout } : {}) }),
      { qos: 1, retain: true },
    )
  for (const [index, client] of clients.entries()) {
    told.set(sites[index]!, [])
    // An empty message: HQ cleared the retained command.
    client.on('message', (_topic, payload) => told.get(sites[index]!)!.push(payload.length ? JSON.parse(payload.toString()) : null))
    await client.subscribeAsync(`${prefix}/${sites[index]}/rollout`, { qos: 1 })
    await status(index, true)
  }
  await until(async () => (await call('GET', '/api/hq/sites')).body.sites?.length === 3, 'three sites known')

  const good = release('0.2.0', chainKey.privatePem)
  await t.test('uploads: refused unless signed by a release key, admin only, stored once', async (t) => {
    const foreign = release('0.2.0', stranger.privatePem)
    t.match(await upload(foreign.archive, foreign.signature), {
      status: 422,
      body: { returnCode: -66, message: /release refused: the signature \(key id \w+\) is not made by any trusted release key/ },
    })
    const damaged = Buffer.from(good.archive)
    damaged[5] ^= 1
    t.match(await upload(damaged, good.signature), { status: 422, body: { message: /damaged or not the one signed/ } })
    t.match(await upload(good.archive, ''), { status: 400, body: { returnCode: -67 } })
    t.match(await upload(randomBytes(4_100_000), good.signature), { status: 413, body: { returnCode: -68 } })
    t.match(await upload(good.archive, good.signature, chain.token), { status: 403, body: { returnCode: -51 } }, 'a read token cannot upload')
    t.same((await call('GET', '/api/hq/releases')).body.releases, [], 'nothing refused was stored')
    const stored = await upload(good.archive, good.signature)
    t.match(stored, {
      status: 201,
      body: { returnCode: 11, created: true, release: { id: 1, version: '0.2.0', sha256: good.sha256, size: good.archive.length } },
    })
    t.match(await upload(good.archive, good.signature), { status: 200, body: { created: false, release: { id: 1 } } }, 'the same archive again: the one stored')
  })

  await t.test('two waves: the canary told first, the rest after it is done', async (t) => {
    t.match(await call('POST', '/api/hq/rollouts', { release: 1, canary: ['s2'] }, chain.token), { status: 403 })
    t.match(await call('POST', '/api/hq/rollouts', { release: 1, canary: ['nowhere'] }), {
      status: 400,
      body: { returnCode: -72, message: /canary site "nowhere"/ },
    })
    t.match(await call('POST', '/api/hq/rollouts', { release: 9 }), { status: 400, body: { message: /no release 9/ } })
    const started = await call('POST', '/api/hq/rollouts', { release: 1, canary: ['s2'], soakMinutes: 0 })
    t.match(started, { status: 201, body: { returnCode: 14, rollout: { id: 1, state: 'running', waves: [['s2'], ['s1', 's3']] } } })
    t.match(await call('POST', '/api/hq/rollouts', { release: 1 }), { status: 409, body: { returnCode: -71 } }, 'one rollout at a time')
    await until(() => told.get('s2')!.length === 1, 'the canary told')
    const command = told.get('s2')![0]
    t.match(command, {
      rolloutId: 1,
      attempt: 1,
      action: 'upgrade',
      version: '0.2.0',
      sha256: good.sha256,
      size: good.archive.length,
      url: 'http://hq.example:8100/api/hq/releases/1/archive',
    })
    t.equal(told.get('s1')!.length + told.get('s3')!.length, 0, 'the others wait for the canary')

    // The archive, as a site fetches it: the secret, by range.
    const archiveUrl = `${base}/api/hq/releases/1/archive`
    t.equal((await fetch(archiveUrl)).status, 404, 'no secret: as if there were no release')
    t.equal((await fetch(archiveUrl, { headers: { 'x-release-secret': 'x'.repeat(48) } })).status, 404)
    const part = await fetch(archiveUrl, { headers: { 'x-release-secret': command.secret, range: 'bytes=1048570-1048589' } })
    t.equal(part.status, 206)
    t.equal(part.headers.get('content-range'), `bytes 1048570-1048589/${good.archive.length}`)
    t.same(Buffer.from(await part.arrayBuffer()), good.archive.subarray(1048570, 1048590), 'a range across two stored chunks')
    const whole = await fetch(archiveUrl, { headers: { 'x-release-secret': command.secret } })
    t.equal(
      createHash('sha256')
        .update(Buffer.from(await whole.arrayBuffer()))
        .digest('hex'),
      good.sha256,
    )
    t.equal((await fetch(archiveUrl, { headers: { 'x-release-secret': command.secret, range: `bytes=${good.archive.length}-` } })).status, 416)

    // The instance that started the rollout stops; another one, started now, carries it on.
    await hq.stop()
    hq = await startInstance('b')
    base = `http://127.0.0.1:${hq.port}`
    await status(1, true, { rolloutId: 1, attempt: 1, state: 'downloading', reason: null, version: '0.2.0', at: new Date().toISOString() })
    await until(
      async () => (await call('GET', '/api/hq/rollouts/1')).body.rollout.sites.find((s: any) => s.siteId === 's2').state === 'downloading',
      'downloading',
    )
    await status(1, true, { rolloutId: 1, attempt: 1, state: 'done', reason: 'upgraded', version: '0.2.0', at: new Date().toISOString() }, '0.2.0')
    await until(() => told.get('s1')!.length === 1 && told.get('s3')!.length === 1, 'the second wave told')
    await status(0, true, { rolloutId: 1, attempt: 1, state: 'done', reason: null, version: '0.2.0', at: new Date().toISOString() }, '0.2.0')
    await status(2, true, { rolloutId: 1, attempt: 1, state: 'done', reason: null, version: '0.2.0', at: new Date().toISOString() }, '0.2.0')
    await until(async () => (await call('GET', '/api/hq/rollouts/1')).body.rollout.state === 'done', 'the rollout done')
    await until(() => sites.every((site) => told.get(site)!.at(-1) === null), 'the retained commands cleared')
    const late = await publisher(chain.broker.url, 'late-reader')
    t.teardown(() => late.endAsync(true))
    const retained: string[] = []
    late.on('message', (topic) => retained.push(topic))
    await late.subscribeAsync(`${prefix}/+/rollout`, { qos: 1 })
    await late.publishAsync(`${prefix}/probe`, 'x', { qos: 1 })
    t.same(retained, [], 'a site installed afresh later finds no command of a finished rollout')
    const listed = (await call('GET', '/api/hq/sites')).body.sites
    t.same(
      listed.map((site: any) => [site.siteId, site.version, site.rollout?.state]),
      [
        ['s1', '0.2.0', 'done'],
        ['s2', '0.2.0', 'done'],
        ['s3', '0.2.0', 'done'],
      ],
      "the board's sites carry their version and rollout state",
    )
  })

  await t.test('a failure at the canary halts and raises an alert; resume tells it again; cancel stands the others down', async (t) => {
    const next = release('0.3.0', chainKey.privatePem, 5000)
    const uploaded = await upload(next.archive, next.signature)
    t.match(uploaded, { status: 201, body: { release: { version: '0.3.0' } } })
    for (const list of told.values()) list.length = 0
    const started = await call('POST', '/api/hq/rollouts', { release: uploaded.body.release.id, canaryCount: 1, soakMinutes: 0 })
    t.match(started, { status: 201, body: { rollout: { state: 'running', waves: [['s1'], ['s2', 's3']] } } })
    const id = started.body.rollout.id as number
    await until(() => told.get('s1')!.length === 1, 'the canary told')
    await status(
      0,
      true,
      { rolloutId: id, attempt: 1, state: 'failed', reason: '0.3.0 failed its health check: restart loop', version: '0.3.0', at: new Date().toISOString() },
      '0.2.0',
    )
    await until(async () => (await call('GET', `/api/hq/rollouts/${id}`)).body.rollout.state === 'halted', 'halted')
    t.match((await call('GET', `/api/hq/rollouts/${id}`)).body.rollout, { reason: /s1: 0\.3\.0 failed its health check: restart loop/ })
    await until(async () => (await call('GET', '/api/hq/alerts')).body.alerts.some((a: any) => a.kind === 'rollout'), 'the rollout alert')
    t.match(
      (await call('GET', '/api/hq/alerts')).body.alerts.find((a: any) => a.kind === 'rollout'),
      { siteId: 's1', detail: new RegExp(`rollout ${id} of version 0\\.3\\.0 halted: the upgrade failed: .*restart loop`) },
    )
    const metrics = await (await fetch(`${base}/api/hq/metrics`, { headers: { authorization: `Bearer ${admin}` } })).text()
    t.match(metrics, /hq_alerts_open\{kind="rollout"\} 1/, 'and in the metrics')
    t.equal(told.get('s2')!.length + told.get('s3')!.length, 0, 'the other sites untouched')

    t.match(await call('POST', `/api/hq/rollouts/${id}/pause`), {
      status: 409,
      body: { returnCode: -73, message: /only a running rollout can be paused \(it is halted\)/ },
    })
    t.match(await call('POST', `/api/hq/rollouts/${id}/resume`, undefined, chain.token), { status: 403 })
    t.match(await call('POST', `/api/hq/rollouts/${id}/resume`), { status: 200, body: { returnCode: 18, rollout: { state: 'running' } } })
    await until(() => told.get('s1')!.length === 2, 'the canary told again')
    t.match(told.get('s1')![1], { rolloutId: id, attempt: 2, action: 'upgrade' })
    await until(async () => !(await call('GET', '/api/hq/alerts')).body.alerts.some((a: any) => a.kind === 'rollout'), 'the alert cleared')
    t.match(await call('POST', `/api/hq/rollouts/${id}/pause`), { status: 200, body: { rollout: { state: 'paused' } } })
    await status(0, true, { rolloutId: id, attempt: 2, state: 'done', reason: null, version: '0.3.0', at: new Date().toISOString() }, '0.3.0')
    await until(async () => (await call('GET', `/api/hq/rollouts/${id}`)).body.rollout.sites[0].state === 'done', 'the canary done')
    t.equal(told.get('s2')!.length, 0, 'paused: the next wave waits')
    t.match(await call('POST', `/api/hq/rollouts/${id}/resume`), { status: 200 })
    await until(() => told.get('s2')!.length === 1 && told.get('s3')!.length === 1, 'the second wave told')
    t.match(await call('POST', `/api/hq/rollouts/${id}/cancel`), { status: 200, body: { rollout: { state: 'cancelled' } } })
    await until(() => told.get('s2')!.length === 2 && told.get('s3')!.length === 2, 'stood down')
    t.same(told.get('s2')![1], { rolloutId: id, action: 'stand-down' })
    t.match(await call('POST', `/api/hq/rollouts/${id}/resume`), { status: 409, body: { message: /cancelled: nothing to resume/ } })
    t.match(await call('GET', '/api/hq/rollouts/77'), { status: 404, body: { returnCode: -70 } })
    t.match(
      (await call('GET', '/api/hq/rollouts')).body.rollouts.map((r: any) => [r.id, r.state]),
      [
        [id, 'cancelled'],
        [1, 'done'],
      ],
    )
  })
})
