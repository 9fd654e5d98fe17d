import t from 'tap'
import { BackupRecord, backupWarning, staleAfterMs } from '../../../lib/backup/record.ts'
import { Store } from '../../../lib/store/db.ts'
import { ManualClock } from '../../helpers/manual-clock.ts'

const result = (at: number, ok: boolean) => ({
  at,
  trigger: 'schedule' as const,
  ok,
  file: ok ? '/b/x.tar' : null,
  bytes: ok ? 10 : null,
  reason: ok ? null : 'disk full',
})

t.test('the last result and the last good one are kept across a reopen', async (t) => {
  const dir = t.testdir()
  const clock = new ManualClock('2026-11-22T12:00:00Z')
  const schedule = { directory: '/mnt/usb', at: '03:30', keep: 7 }
  const store = new Store({ dataDir: dir })
  const record = await BackupRecord.open(await store.collection('backup-status'), clock, schedule)
  t.same(record.view('UTC'), {
    scheduled: true,
    directory: '/mnt/usb',
    at: '03:30',
    keep: 7,
    nextAt: null,
    running: false,
    last: null,
    lastGood: null,
    warning: null,
  })
  await record.save(result(clock.now(), true))
  await record.save(result(clock.now() + 1000, false))
  await store.close()
  const again = await BackupRecord.open(await new Store({ dataDir: dir }).collection('backup-status'), clock, { ...schedule, directory: null })
  again.nextAt = Date.parse('2026-11-23T03:30:00Z')
  const view = again.view('Europe/Paris')
  t.equal(view.scheduled, false)
  t.equal(view.last!.ok, false)
  t.equal(view.last!.reason, 'disk full')
  t.equal(view.lastGood!.at, '2026-11-22T13:00:00+01:00', 'times in the gateway timezone')
  t.equal(view.nextAt, '2026-11-23T04:30:00+01:00')
  t.equal(view.warning, 'failed')
})

t.test('warnings: a failed last one, or a good one older than two days', async (t) => {
  const now = Date.parse('2026-11-22T12:00:00Z')
  t.equal(backupWarning(null, null, now), null)
  t.equal(backupWarning(result(now, false), null, now), 'failed')
  t.equal(backupWarning(result(now - 1000, true), result(now - 1000, true), now), null)
  t.equal(backupWarning(result(now - staleAfterMs - 1, true), result(now - staleAfterMs - 1, true), now), 'stale')
  t.equal(backupWarning(result(now - staleAfterMs, true), result(now - staleAfterMs, true), now), null, 'exactly two days is not yet stale')
})
