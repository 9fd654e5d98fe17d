// The backup schedule (runtime/workers/backup-schedule.ts) follows what the wall clock means:
// a timezone changed in the settings, a clock step mended by the clock watch. The next run
// (GET /api/v2/gateway's backup.nextAt) and the timer behind it move at once, not at a restart.
import t, { type Test } from 'tap'
import { ClockWatch } from '../../../lib/kernel/clock-watch.ts'
import type { RunBackupOptions } from '../../../runtime/backup/backup-service.ts'
import { backupSchedulePart } from '../../../runtime/workers/backup-schedule.ts'
import { testGateway } from '../../helpers/gateway.ts'
import { SteppingClock } from '../../helpers/stepping-clock.ts'
import { until } from '../../helpers/until.ts'

async function scheduled(t: Test) {
  const clock = new SteppingClock('2026-11-22T12:00:00Z')
  const gw = await testGateway({}, undefined, clock)
  const record = gw.services.backupRecord
  const runs: number[] = []
  const backups = {
    run: async (_options: RunBackupOptions) => {
      runs.push(clock.now())
      return { file: 'f', bytes: 1, manifest: {} as never, removed: [] }
    },
    idle: async () => {},
  }
  const watch = new ClockWatch({
    clock,
    log: gw.logs.log,
    mend: async (deltaMs) => clock.shift(deltaMs),
    readSync: () => new Promise(() => {}),
    thresholdMs: 3000,
    checkEveryMs: 1000,
    syncCheckMs: 3_600_000,
    holdMs: 300_000,
    boardMaxShiftMs: 1e10,
  })
  watch.start()
  const part = backupSchedulePart({ backups, record, clock, log: gw.logs.log, directory: '/mnt/backup', at: '03:30', timezone: () => gw.services.settings.timezone, settings: gw.services.settings, clockWatch: watch })
  await gw.services.settings.update({ timezone: 'UTC' })
  await part.start()
  t.teardown(async () => {
    await part.stop()
    watch.stop()
  })
  return { clock, gw, record, runs, watch }
}

t.test('a timezone change moves the next run to the time in the new zone', async (t) => {
  const { clock, gw, record, runs } = await scheduled(t)
  t.equal(record.nextAt, Date.parse('2026-11-23T03:30:00Z'))
  // 12:00 UTC is 21:00 in Tokyo: the next 03:30 there is 18:30 UTC today.
  await gw.services.settings.update({ timezone: 'Asia/Tokyo' })
  t.equal(record.nextAt, Date.parse('2026-11-22T18:30:00Z'), 'nextAt in the new zone')
  t.equal(gw.services.backupRecord.view('Asia/Tokyo').nextAt, '2026-11-23T03:30:00+09:00')
  await clock.advance(6.5 * 3600_000 - 1000)
  t.same(runs, [], 'not before')
  await clock.advance(1000)
  await until(() => runs.length === 1, 'the backup at 03:30 Tokyo time')
  t.equal(runs[0], Date.parse('2026-11-22T18:30:00Z'))
  await until(() => record.nextAt === Date.parse('2026-11-23T18:30:00Z'), 'armed for the next day in Tokyo')
  // Another setting changed: nothing moves.
  await gw.services.settings.update({ targetTimeDefault: 600 })
  t.equal(record.nextAt, Date.parse('2026-11-23T18:30:00Z'))
})

t.test('a clock step forward: the next run is computed on the corrected clock, never a time already past', async (t) => {
  const { clock, record, runs, watch } = await scheduled(t)
  t.equal(record.nextAt, Date.parse('2026-11-22T12:00:00Z') + 15.5 * 3600_000)
  // The box booted a day behind; network time steps it to 2026-11-23T20:00Z.
  clock.step(32 * 3600_000)
  clock.now()
  await watch.settled()
  await until(() => record.nextAt === Date.parse('2026-11-24T03:30:00Z'), 'the next run moved to the corrected clock\'s next 03:30')
  t.ok(record.nextAt! > clock.now(), 'not in the past')
  // The timer moved with it: it fires at 03:30 on the corrected clock (7.5 h on), not at the old one's.
  await clock.advance(7.5 * 3600_000 - 1000)
  t.same(runs, [], 'not at the old timer\'s time (15.5 h after the start)')
  await clock.advance(1000)
  await until(() => runs.length === 1, 'the backup at 03:30')
  t.equal(runs[0], Date.parse('2026-11-24T03:30:00Z'))
})

t.test('a clock step back: the next run comes sooner, at the corrected clock\'s 03:30', async (t) => {
  const { clock, record, runs, watch } = await scheduled(t)
  clock.step(-2 * 24 * 3600_000)
  clock.now()
  await watch.settled()
  await until(() => record.nextAt === Date.parse('2026-11-21T03:30:00Z'), 'moved back with the clock')
  await clock.advance(15.5 * 3600_000)
  await until(() => runs.length === 1, 'the backup at the corrected 03:30')
  t.equal(runs[0], Date.parse('2026-11-21T03:30:00Z'))
})
