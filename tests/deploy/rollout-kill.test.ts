// kill -9 in the middle of an upgrade a rollout asked for (issue 46), on a box installed by
// deploy/install.sh under the stand-in service manager (which also plays
// tracker-gateway-rollout.path), its gateway's fleet pointed at a real Mosquitto where the
// test publishes HQ's retained command, the archive served by range as HQ serves it:
// (a) the gateway killed (SIGKILL, as a power cut) while its rollout agent downloads: started
//     again, it resumes from its .part (the next range starts where the .part ends), the
//     archive has the announced checksum, and the gateway starts normally;
// (b) the runner (`gateway upgrade --queued`, with every process it started) killed with the
//     service when its journal reaches a step drawn from a seed (or, at 'taken', once it has
//     taken the request and before its journal began): the box boots on a working version
//     (tests/helpers/upgrade-kill.ts, shared with upgrade-kill.test.ts), and the status
//     message the gateway publishes tells HQ how the upgrade ended (rollout-result.json,
//     written by the start-up check for a runner cut off).
// ROLLOUT_KILL_SEED=N repeats a step; ROLLOUT_KILL_STEPS=all goes through every one (a new
// box each).
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import http from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t from 'tap'
import { readJournal, type UpgradeStep } from '../../runtime/upgrade/journal.ts'
import { readResult } from '../../runtime/upgrade/queued.ts'
import { installBox, installedVersion, keyPair, makeRelease, waitAnswers, startOrder, activeOrderNumbers } from '../helpers/upgrade-box.ts'
import { checkBooted, chooseSteps, journalFile, killAt, killSteps } from '../helpers/upgrade-kill.ts'
import { until } from '../helpers/until.ts'
import { publisher } from '../lib/hq/fixtures.ts'
import { startBroker } from '../lib/fleet/mosquitto.ts'

const prefix = 'chain'
const steps = ['taken', ...killSteps] as const
const chosen = chooseSteps(t, 'ROLLOUT_KILL', steps)

/** HQ's archive route: ranges of one archive; where each request started. */
async function archiveServer(archive: Buffer) {
  const starts: number[] = []
  const server = http.createServer((req, res) => {
    const range = /^bytes=(\d+)-(\d+)$/.exec(String(req.headers.range))
    if (!range || req.headers['x-release-secret'] !== 'secret') return void res.writeHead(403).end()
    starts.push(Number(range[1]))
    res.writeHead(206).end(archive.subarray(Number(range[1]), Number(range[2]) + 1))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/api/hq/releases/1/archive`,
    starts,
    close: () => new Promise((resolve) => server.close(resolve)),
  }
}

for (const target of chosen) {
  t.test(`a rollout's upgrade: the gateway killed mid-download, then the runner killed at ${target}`, async (t) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rolk-'))
    t.teardown(() => rm(dir, { recursive: true, force: true }))
    const broker = await startBroker({ dir })
    t.teardown(() => broker.stop())
    const key = keyPair(dir, 'chain')
    const version = '0.10.0'
    const file = makeRelease(dir, version, { privatePem: key.privatePem, crashAtStart: target === 'rolling-back' })
    const archive = readFileSync(file)
    const sha256 = createHash('sha256').update(archive).digest('hex')
    const server = await archiveServer(archive)
    t.teardown(() => server.close())
    // About ten seconds of download: time to kill the gateway in the middle.
    const bandwidthKiBps = Math.max(16, Math.floor(archive.length / 1024 / 10))
    const box = await installBox(dir, key.publicFile, {
      config: { fleet: { enabled: true, brokerUrl: broker.url, siteId: 'site-k', topicPrefix: prefix, rollout: { bandwidthKiBps } } },
      rolloutArgs: ['--health-timeout', '90', '--health-stable', '1'],
    })
    t.teardown(() => box.close())
    t.equal(await startOrder(box, 7, 3), 200)
    const orders = () => activeOrderNumbers(box)

    // HQ's side on the broker: the retained command, and the site's status as HQ reads it.
    const hq = await publisher(broker.url, 'hq-test')
    t.teardown(() => hq.endAsync(true))
    const statuses: any[] = []
    hq.on('message', (_topic, payload) => statuses.push(JSON.parse(payload.toString())))
    await hq.subscribeAsync(`${prefix}/site-k/status`, { qos: 1 })
    const command = {
      rolloutId: 1,
      attempt: 1,
      action: 'upgrade',
      version,
      sha256,
      size: archive.length,
      url: server.url,
      secret: 'secret',
      signature: JSON.parse(readFileSync(`${file}.sig`, 'utf8')),
    }
    await hq.publishAsync(`${prefix}/site-k/rollout`, JSON.stringify(command), { qos: 1, retain: true })

    const rolloutDir = path.join(box.dataDir, 'rollout')
    const part = path.join(rolloutDir, `tracker-gateway-${version}.tar.gz.part`)
    const size = (name: string) => statSync(name, { throwIfNoEntry: false })?.size ?? 0

    await t.test('(a) the gateway killed mid-download resumes from its .part', async (t) => {
      await until(() => size(part) >= archive.length / 4, 'a quarter downloaded', 120_000)
      await box.service.powerCut()
      const kept = size(part)
      t.ok(kept > 0 && kept < archive.length, `killed with ${kept} of ${archive.length} bytes in the .part`)
      const before = server.starts.length
      await box.service.start()
      t.equal(await waitAnswers(box), installedVersion, 'the gateway starts normally')
      await until(() => server.starts.length > before, 'the download goes on')
      t.equal(server.starts[before], kept, 'the first range after the restart starts where the .part ends')
      t.notOk(server.starts.slice(before).includes(0), 'nothing downloaded again from the start')
      await until(
        () => existsSync(path.join(rolloutDir, 'request.json')) || box.service.pathRunning || readJournal(journalFile(box))?.to.version === version,
        'downloaded and queued',
        300_000,
      )
      const downloaded = path.join(rolloutDir, `tracker-gateway-${version}.tar.gz`)
      if (existsSync(downloaded)) t.equal(createHash('sha256').update(readFileSync(downloaded)).digest('hex'), sha256, 'the announced checksum')
      t.match(statuses.findLast((s) => s.rollout)?.rollout, { rolloutId: 1, attempt: 1, state: /downloading|waiting-for-window|upgrading/ })
    })

    await t.test(`(b) the runner killed at ${target}: a working version, and HQ told how it ended`, async (t) => {
      const taken = path.join(box.root, 'opt/tracker-gateway-releases/rollout-taken.json')
      const seen = await killAt(box, version, target === 'taken' ? 'preparing' : (target as UpgradeStep), {
        ended: () => existsSync(path.join(box.root, 'opt/tracker-gateway-releases/rollout-result.json')),
        reached: () => target === 'taken' && existsSync(taken),
        kill: () => box.service.killPathRuns(),
      })
      t.comment(`killed at ${seen ?? (existsSync(taken) ? 'taken' : 'the end')} (aimed at ${target})`)
      await box.service.start()
      const running = await checkBooted(t, box, installedVersion, version)
      t.same(await orders(), [7], 'orders intact')
      const result = await readResult(path.join(box.root, 'opt/tracker-gateway-releases/rollout-result.json'))
      t.comment(`result: ${result?.message}`)
      t.match(result, { rolloutId: 1, attempt: 1, version, ok: running === version }, 'the result says how it ended')
      t.notOk(existsSync(taken), 'nothing left taken')
      await until(() => ['done', 'failed'].includes(statuses.findLast((s) => s.online && s.rollout)?.rollout.state), 'the status tells HQ')
      t.match(statuses.findLast((s) => s.online && s.rollout).rollout, {
        rolloutId: 1,
        attempt: 1,
        state: running === version ? 'done' : 'failed',
        reason: result!.message,
        version,
      })
      t.equal(statuses.findLast((s) => s.online).version, running, 'the status says the version that runs')
    })
  })
}
