// `gateway upgrade --queued` (runtime/upgrade/queued.ts): the request a rollout queued in the
// data dir is taken once, and how the upgrade ended is written for the gateway to report;
// a runner cut off (kill -9, a power cut) leaves the request taken, and the start-up check (or
// the next run) writes its result from the journal.
// The upgrade itself is upgrade.ts's (tests/runtime/upgrade/upgrade.test.ts; the whole path on
// installed boxes: tests/deploy/rollout.test.ts).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { readJournal, writeJournal, type UpgradeJournal } from '../../../runtime/upgrade/journal.ts'
import { readResult, readTaken, requestFile, runQueued } from '../../../runtime/upgrade/queued.ts'
import { settleTaken, writeResult, writeTaken } from '../../../runtime/upgrade/queued-record.ts'
import { recover } from '../../../runtime/upgrade/upgrade.ts'
import { queuedBox } from '../../helpers/queued-box.ts'

t.test('a queued request is taken once and its end written; nothing queued: nothing done', async (t) => {
  const { layout, dataDir, ctx } = queuedBox(t.testdir({}))
  mkdirSync(path.join(dataDir, 'rollout'))
  t.equal(await runQueued(ctx), 'no upgrade queued')
  t.equal(await readResult(layout.rolloutResult), null)
  writeFileSync(
    requestFile(dataDir),
    JSON.stringify({ rolloutId: 4, attempt: 2, version: '0.2.0', archive: '../../etc/tracker-gateway-0.2.0.tar.gz', requestedAt: new Date().toISOString() }),
  )
  await t.rejects(runQueued(ctx), /is not a link into/)
  t.notOk(existsSync(requestFile(dataDir)), 'the request is taken: it runs once')
  t.match(await readResult(layout.rolloutResult), { rolloutId: 4, attempt: 2, version: '0.2.0', ok: false, message: /is not a link into/ })
  t.match(readFileSync(layout.rolloutResult, 'utf8'), /"ok":false/)
})

function box(t: { testdir(): string }) {
  const made = queuedBox(t.testdir())
  mkdirSync(path.join(made.dataDir, 'rollout'))
  return made
}

const request = { rolloutId: 7, attempt: 1, version: '0.2.0', archive: 'tracker-gateway-0.2.0.tar.gz', requestedAt: '2026-12-02T03:00:00.000Z' }
const journal = (step: UpgradeJournal['step'], startedAt: string, reason: string | null = null): UpgradeJournal => ({
  step,
  kind: 'upgrade',
  from: { version: '0.1.0', dir: '0.1.0-aaaa', dataFormat: 1 },
  to: { version: '0.2.0', dir: '0.2.0-bbbb', dataFormat: 1 },
  previous: null,
  backup: null,
  startedAt,
  updatedAt: '',
  reason,
})

t.test('a runner cut off: the start-up check writes the result from the journal, once', async (t) => {
  await t.test('cut off after the commit: it upgraded', async (t) => {
    const { layout, ctx } = box(t)
    await writeTaken(layout, { ...request, takenAt: '2026-12-02T03:00:01.000Z' })
    writeJournal(layout.journal, journal('committed', '2026-12-02T03:00:02.000Z'))
    t.match(await recover(ctx), /the queued upgrade to 0\.2\.0 \(rollout 7\) had been cut off: its result written/)
    t.match(await readResult(layout.rolloutResult), {
      rolloutId: 7,
      attempt: 1,
      ok: true,
      message: /upgraded 0\.1\.0 -> 0\.2\.0 \(its runner was cut off after the commit\)/,
    })
    t.equal(await readTaken(layout.rolloutTaken), null, 'settled once')
    t.equal(await recover(ctx), '', 'nothing left to do')
  })
  await t.test('cut off after the switch: rolled back by the start-up check, and said so', async (t) => {
    const { layout, ctx } = box(t)
    await writeTaken(layout, { ...request, takenAt: '2026-12-02T03:00:01.000Z' })
    writeJournal(layout.journal, journal('switched', '2026-12-02T03:00:02.000Z'))
    t.match(await recover(ctx), /rolled back the upgrade to 0\.2\.0 \(interrupted at switched\); the queued upgrade to 0\.2\.0/)
    t.equal(readJournal(layout.journal)?.step, 'rolled-back')
    t.match(await readResult(layout.rolloutResult), {
      rolloutId: 7,
      ok: false,
      message: /upgrade to 0\.2\.0 was cut off \(power cut or kill\) and did not complete: rolled-back, interrupted at step switched/,
    })
  })
  await t.test('cut off before its journal began: nothing changed, and said so', async (t) => {
    const { layout, ctx } = box(t)
    writeJournal(layout.journal, { ...journal('committed', '2026-11-30T03:00:00.000Z'), to: { version: '0.1.0', dir: '0.1.0-aaaa', dataFormat: 1 } })
    await writeTaken(layout, { ...request, takenAt: '2026-12-02T03:00:01.000Z' })
    await recover(ctx)
    t.match(await readResult(layout.rolloutResult), { rolloutId: 7, ok: false, message: /cut off \(power cut or kill\) before it began; nothing was changed/ })
  })
  await t.test('cut off after writing its result: the result stands', async (t) => {
    const { layout, dataDir } = box(t)
    await writeTaken(layout, { ...request, takenAt: '2026-12-02T03:00:01.000Z' })
    await writeResult(layout, { rolloutId: 7, attempt: 1, version: '0.2.0', ok: true, message: 'upgraded 0.1.0 -> 0.2.0', at: '2026-12-02T03:05:00.000Z' })
    await settleTaken(layout, dataDir)
    t.match(await readResult(layout.rolloutResult), { message: 'upgraded 0.1.0 -> 0.2.0' })
    t.equal(await readTaken(layout.rolloutTaken), null)
  })
  await t.test('an upgrade still running is left to it', async (t) => {
    const { layout, dataDir } = box(t)
    await writeTaken(layout, { ...request, takenAt: '2026-12-02T03:00:01.000Z' })
    writeJournal(layout.journal, journal('prepared', '2026-12-02T03:00:02.000Z'))
    t.equal(await settleTaken(layout, dataDir), '')
    t.ok(await readTaken(layout.rolloutTaken), 'still taken')
    t.equal(await readResult(layout.rolloutResult), null)
  })
  await t.test('cut off before it removed the request: queued again, no result', async (t) => {
    const { layout, dataDir, ctx } = box(t)
    writeFileSync(requestFile(dataDir), JSON.stringify(request))
    await writeTaken(layout, { ...request, takenAt: '2026-12-02T03:00:01.000Z' })
    t.match(await recover(ctx), /cut off before it began: queued again/)
    t.equal(await readResult(layout.rolloutResult), null)
    t.equal(await readTaken(layout.rolloutTaken), null)
    t.ok(existsSync(requestFile(dataDir)), 'the path unit runs it again')
  })
})

t.test('the runner records the request taken for the whole upgrade, and settles one an earlier run left', async (t) => {
  const { layout, dataDir, ctx } = box(t)
  // An earlier runner cut off before its journal began, on a box not restarted since.
  await writeTaken(layout, { ...request, attempt: 1, takenAt: '2026-12-02T03:00:01.000Z' })
  writeFileSync(requestFile(dataDir), JSON.stringify({ ...request, attempt: 2 }))
  const seen: unknown[] = []
  const message = await runQueued(ctx, async (_ctx, options) => {
    seen.push(
      await readTaken(layout.rolloutTaken),
      await readResult(layout.rolloutResult),
      existsSync(requestFile(dataDir)),
      options.source,
      Boolean(options.lock),
    )
    return 'upgraded 0.1.0 -> 0.2.0'
  })
  t.equal(message, 'upgraded 0.1.0 -> 0.2.0')
  t.match(seen, [
    { rolloutId: 7, attempt: 2, version: '0.2.0' },
    { rolloutId: 7, attempt: 1, ok: false, message: /before it began/ },
    false,
    path.join(dataDir, 'rollout/tracker-gateway-0.2.0.tar.gz'),
    true,
  ])
  t.match(await readResult(layout.rolloutResult), { rolloutId: 7, attempt: 2, ok: true })
  t.equal(await readTaken(layout.rolloutTaken), null, 'nothing left taken once the result is written')
})
