// HQ serving HTTPS itself (hq.config.json `tls`), over real PostgreSQL and Mosquitto, with a
// certificate from a throwaway chain CA (tests/lib/fleet/certs.ts, the broker tests' PKI): the
// API, the board and the live feed answer over TLS and nothing in clear; a release upload is
// streamed (staged in a private temporary file, never whole in memory) and a refused one, too
// large, wrongly signed or damaged, leaves nothing stored nor staged; a site downloads the
// archive trusting the chain CA (fetchRelease and the rollout agent) and refuses an HQ whose
// certificate another CA signed, saying so in its rollout report.
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto'
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import WebSocket from 'ws'
import { fleetConfigSchema, hqTrust } from '../../../lib/fleet/config.ts'
import { HqTokens } from '../../../lib/hq/tokens.ts'
import { signRelease } from '../../../lib/release/signature.ts'
import { startHq } from '../../../runtime/hq/main.ts'
import { fetchRelease } from '../../../runtime/upgrade/fetch-release.ts'
import { RolloutAgent } from '../../../runtime/workers/rollout.ts'
import { caRequest } from '../../helpers/ca-request.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { startPostgres } from '../../helpers/postgres.ts'
import { until } from '../../helpers/until.ts'
import { makePki } from '../../lib/fleet/certs.ts'
import { startBroker } from '../../lib/fleet/mosquitto.ts'
import { freshDatabase, hqConfig, prefix, publisher } from '../../lib/hq/fixtures.ts'
import { brokerLines } from './fixtures.ts'

const pg = await startPostgres({ fast: true })
t.teardown(() => pg.destroy())

function keyFiles(dir: string, name: string) {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  const file = path.join(dir, `${name}.pub`)
  writeFileSync(file, publicKey.export({ type: 'spki', format: 'pem' }))
  return { privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, file }
}

function release(version: string, privatePem: string, size: number) {
  const archive = randomBytes(size)
  const sha256 = createHash('sha256').update(archive).digest('hex')
  const signature = signRelease(privatePem, `tracker-gateway-${version}.tar.gz`, version, sha256)
  return { archive, sha256, signature, header: Buffer.from(JSON.stringify(signature)).toString('base64') }
}

t.test('HQ over HTTPS: API, board, live feed, streamed uploads, downloads trusting the chain CA', async (t) => {
  const dir = t.testdir({})
  const pki = makePki(dir)
  const ca = readFileSync(pki.ca)
  const chainKey = keyFiles(dir, 'chain')
  const stranger = keyFiles(dir, 'stranger')
  // Where HQ stages uploads (os.tmpdir() reads TMPDIR at each upload): to see that nothing stays.
  const staging = path.join(dir, 'staging')
  mkdirSync(staging)
  const tmpdir = process.env.TMPDIR
  process.env.TMPDIR = staging
  t.teardown(() => {
    if (tmpdir === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = tmpdir
  })
  const broker = await startBroker({ dir, lines: brokerLines })
  t.teardown(() => broker.stop())
  const { url: postgresUrl, db } = await freshDatabase(pg)
  t.teardown(() => db.close())
  const hq = await startHq({
    config: hqConfig({
      postgresUrl,
      brokerUrl: broker.url,
      instanceId: 'a',
      port: 0,
      host: '127.0.0.1',
      tls: { cert: pki.serverCert, key: pki.serverKey },
      releases: { keys: [chainKey.file], publicUrl: 'https://127.0.0.1:8100', maxBytes: 4_000_000 },
    }),
    log: memoryLogger('error').log,
  })
  t.teardown(() => hq.stop())
  await hq.ingest.connected()
  t.equal(hq.scheme, 'https')
  const base = `https://127.0.0.1:${hq.port}`
  const admin = (await new HqTokens(db).create('ops', 'admin')).token
  const auth = { authorization: `Bearer ${admin}` }

  await t.test('the API, the board and the live feed answer over TLS; nothing in clear', async (t) => {
    const sites = await caRequest(`${base}/api/hq/sites`, { ca, headers: auth })
    t.equal(sites.status, 200)
    t.same(sites.json().sites, [])
    const board = await caRequest(`${base}/`, { ca })
    t.equal(board.status, 200)
    t.match(board.headers['content-type'], /text\/html/)
    await t.rejects(caRequest(`http://127.0.0.1:${hq.port}/api/hq/sites`, { headers: auth }), 'no plain HTTP on the port')
    await t.rejects(
      caRequest(`${base}/api/hq/sites`, { ca: readFileSync(pki.rogueCa), headers: auth }),
      { code: /UNABLE_TO_VERIFY|SELF_SIGNED/ },
      "its certificate is the chain CA's",
    )

    const socket = new WebSocket(`wss://127.0.0.1:${hq.port}/api/hq/live`, ['hq', `token.${admin}`], { ca })
    t.teardown(() => socket.terminate())
    const messages: any[] = []
    socket.on('message', (data) => messages.push(JSON.parse(String(data))))
    await until(() => messages.some((m) => m.type === 'hello'), 'the live feed says hello over wss')
    const site = await publisher(broker.url, 'site-s1')
    t.teardown(() => site.endAsync(true))
    const at = new Date().toISOString()
    await site.publishAsync(`${prefix}/s1/status`, JSON.stringify({ siteId: 's1', online: true, version: '0.1.0', startedAt: at, at, backlog: 0 }), {
      qos: 1,
      retain: true,
    })
    await until(() => messages.some((m) => m.type === 'changed'), 'a change reaches the board over wss')
  })

  const stored = async () => {
    const { rows } = await db.query<{ releases: string; chunks: string }>(
      'SELECT (SELECT count(*) FROM hq_releases) AS releases, (SELECT count(*) FROM hq_release_chunks) AS chunks',
    )
    return { releases: Number(rows[0]!.releases), chunks: Number(rows[0]!.chunks) }
  }
  const upload = (archive: Buffer, header: string) =>
    caRequest(`${base}/api/hq/releases`, {
      ca,
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/gzip', 'release-signature': header },
      body: archive,
    })
  const good = release('0.2.0', chainKey.privatePem, 2_500_000)

  await t.test('uploads are streamed; a refused one leaves nothing stored nor staged', async (t) => {
    const foreign = release('0.2.0', stranger.privatePem, 300_000)
    const refused = await upload(foreign.archive, foreign.header)
    t.match(refused.json(), { status: 422, returnCode: -66, message: /release refused: the signature \(key id \w+\) is not made by any trusted release key/ })
    const tooLarge = await upload(randomBytes(4_100_000), good.header)
    t.equal(tooLarge.status, 413)
    t.match(tooLarge.json(), { returnCode: -68 })
    const damaged = Buffer.from(good.archive)
    damaged[2_000_000] ^= 1
    t.match((await upload(damaged, good.header)).json(), { status: 422, message: /damaged or not the one signed/ })
    t.same(await stored(), { releases: 0, chunks: 0 }, 'nothing refused was stored')
    t.same(readdirSync(staging), [], 'nothing refused stays staged')

    const created = await upload(good.archive, good.header)
    t.equal(created.status, 201)
    t.match(created.json(), { created: true, release: { id: 1, version: '0.2.0', sha256: good.sha256, size: good.archive.length } })
    t.same(await stored(), { releases: 1, chunks: 3 }, 'in 1 MiB chunks')
    const { rows } = await db.query<{ data: Buffer }>('SELECT data FROM hq_release_chunks WHERE release_id = 1 ORDER BY n')
    t.ok(Buffer.concat(rows.map((row) => row.data)).equals(good.archive), 'the bytes stored are the bytes sent')
    t.same(readdirSync(staging), [], 'the staged file is gone once stored')
    t.match((await upload(good.archive, good.header)).json(), { status: 200, created: false, release: { id: 1 } }, 'the same archive again: the one stored')
    t.same(await stored(), { releases: 1, chunks: 3 })
  })

  await t.test('a site downloads trusting the chain CA; an HQ certificate from another CA is refused', async (t) => {
    const { rows } = await db.query<{ download_secret: string }>('SELECT download_secret FROM hq_releases WHERE id = 1')
    const secret = rows[0]!.download_secret
    const url = `${base}/api/hq/releases/1/archive`
    const download = { url, secret, sha256: good.sha256, size: good.archive.length, bytesPerSecond: 100_000_000 }
    const trusted = hqTrust(fleetConfigSchema.parse({ ca: pki.ca }))
    t.match(trusted, { source: `fleet.ca ${pki.ca}` }, "the broker's CA when no rollout.ca is set")
    const file = path.join(dir, 'tracker-gateway-0.2.0.tar.gz')
    await fetchRelease({ ...download, file, trust: trusted })
    t.ok(readFileSync(file).equals(good.archive), 'downloaded over HTTPS')

    const rogue = hqTrust(fleetConfigSchema.parse({ ca: pki.ca, rollout: { ca: pki.rogueCa } }))
    t.match(rogue, { source: `fleet.rollout.ca ${pki.rogueCa}` }, 'rollout.ca wins over the broker CA')
    const other = path.join(dir, 'other.tar.gz')
    await t.rejects(fetchRelease({ ...download, file: other, trust: rogue }), {
      name: 'ReleaseDownloadError',
      message: new RegExp(
        `HQ's certificate at 127\\.0\\.0\\.1:${hq.port} is refused \\(.*\\): this site trusts only the CA of fleet\\.rollout\\.ca ${pki.rogueCa}`,
      ),
    })
    await t.rejects(fetchRelease({ ...download, file: other }), { message: /this site trusts only the public CAs/ }, 'no CA configured: the public ones')

    // The rollout agent, as a site runs it: the refusal is its report's reason.
    const command = (rolloutId: number) =>
      Buffer.from(
        JSON.stringify({
          rolloutId,
          attempt: 1,
          action: 'upgrade',
          version: '0.2.0',
          sha256: good.sha256,
          size: good.archive.length,
          url,
          secret,
          signature: good.signature,
        }),
      )
    const agentFor = (site: string, trust: () => ReturnType<typeof hqTrust>) => {
      const siteDir = path.join(dir, site)
      mkdirSync(siteDir)
      const agent = new RolloutAgent({
        // The window never opens here: a downloaded archive waits for it.
        config: fleetConfigSchema.parse({ rollout: { window: { hours: '00:00-00:01' } } }).rollout,
        dataDir: siteDir,
        layout: { rolloutResult: path.join(siteDir, 'rollout-result.json'), rolloutTaken: path.join(siteDir, 'rollout-taken.json') },
        hqTrust: trust,
        runningVersion: '0.1.0',
        timezone: () => 'UTC',
        activeOrders: () => 0,
        changed: () => undefined,
        log: memoryLogger('error').log,
        pollMs: 50,
        now: () => Date.parse('2026-12-02T12:00:00Z'),
      })
      t.teardown(() => agent.stop())
      agent.start()
      return { agent, siteDir }
    }
    const refusing = agentFor('site-rogue', () => rogue)
    refusing.agent.handle(command(7))
    await until(() => refusing.agent.report()?.state === 'failed', 'the download refused')
    t.match(refusing.agent.report(), { rolloutId: 7, state: 'failed', reason: /HQ's certificate at .* is refused .* fleet\.rollout\.ca/ })
    const trusting = agentFor('site-trusting', () => trusted)
    trusting.agent.handle(command(8))
    await until(() => trusting.agent.report()?.state === 'waiting-for-window', 'downloaded, waiting for the window')
    t.ok(readFileSync(path.join(trusting.siteDir, 'rollout/tracker-gateway-0.2.0.tar.gz')).equals(good.archive))
  })
})
