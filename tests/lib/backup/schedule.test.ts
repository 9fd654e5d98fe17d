import t from 'tap'
import path from 'node:path'
import { backupFileName, beyondKeep, listScheduledBackups, nextRunAt } from '../../../lib/backup/schedule.ts'

t.test('the next run is the next time the wall clock shows HH:MM in the zone', async (t) => {
  const at = (iso: string) => Date.parse(iso)
  t.equal(nextRunAt(at('2026-11-22T12:00:00Z'), '03:30', 'UTC'), at('2026-11-23T03:30:00Z'), 'past today: tomorrow')
  t.equal(nextRunAt(at('2026-11-22T02:00:00Z'), '03:30', 'UTC'), at('2026-11-22T03:30:00Z'), 'later today')
  t.equal(nextRunAt(at('2026-11-22T03:30:00Z'), '03:30', 'UTC'), at('2026-11-23T03:30:00Z'), 'exactly now: tomorrow')
  t.equal(nextRunAt(at('2026-11-22T12:00:00Z'), '03:30', 'Europe/Paris'), at('2026-11-23T02:30:00Z'), 'in the gateway timezone')
  // The night clocks go back (Paris, 2026-10-25): still one run at 03:30 local.
  t.equal(nextRunAt(at('2026-10-24T12:00:00Z'), '03:30', 'Europe/Paris'), at('2026-10-25T02:30:00Z'))
})

t.test('file names sort by age; only this gateway\'s whole scheduled backups are listed for retention', async (t) => {
  const a = backupFileName('gw/1', Date.parse('2026-11-22T03:30:00.123Z'), false)
  t.equal(a, 'gateway-backup-gw_1-20261122T033000Z.tar')
  t.equal(backupFileName('gw1', Date.parse('2026-11-22T03:30:00Z'), true), 'gateway-backup-gw1-20261122T033000Z.tar.enc')
  t.equal(backupFileName('gw1', Date.parse('2026-11-22T03:30:00Z'), true, true), 'gateway-backup-gw1-20261122T033000Z-scheduled.tar.enc')
  const dir = t.testdir({
    'gateway-backup-gw1-20261123T033000Z-scheduled.tar.enc': '',
    'gateway-backup-gw1-20261122T033000Z-scheduled.tar': '',
    'gateway-backup-gw1-20261122T120000Z.tar': '',
    'gateway-backup-gw1-20261121T033000Z.tar': '',
    'gateway-backup-gw1-20261124T033000Z-scheduled.tar.partial': '',
    'gateway-backup-gw2-20261121T033000Z-scheduled.tar': '',
    'notes.txt': '',
  })
  t.same(await listScheduledBackups(dir, 'gw1'), ['gateway-backup-gw1-20261122T033000Z-scheduled.tar', 'gateway-backup-gw1-20261123T033000Z-scheduled.tar.enc'].map((n) => path.join(dir, n)), 'not those by hand, nor those from before the naming')
})

t.test('beyond keep: the oldest go, never the newest', async (t) => {
  t.same(beyondKeep(['a', 'b', 'c', 'd'], 2, 'd'), ['a', 'b'])
  t.same(beyondKeep(['a', 'b'], 2, 'b'), [])
  t.same(beyondKeep(['a', 'b', 'c'], 1, 'c'), ['a', 'b'])
  t.same(beyondKeep(['a', 'b', 'x'], 2, 'new'), ['a', 'b'], 'the new one counts even when listed elsewhere')
})
