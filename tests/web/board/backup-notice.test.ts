import t from 'tap'
// @ts-expect-error: a plain browser ES module without types
import { backupNotice } from '../../../web/board/backup-notice.js'

const good = { at: '2026-11-20T03:30:00+01:00', ok: true, file: '/mnt/usb/a.tar', bytes: 10, reason: null }

t.test('nothing to show while backups are fine, or not reported', async (t) => {
  t.match(backupNotice(undefined), { hidden: true })
  t.match(backupNotice(null), { hidden: true })
  t.match(backupNotice({ warning: null, last: good, lastGood: good }), { hidden: true })
})

t.test('a failed backup and an overdue one are named, with the detail in the title', async (t) => {
  t.same(backupNotice({ warning: 'failed', last: { ...good, ok: false, reason: 'ENOSPC: no space left' }, lastGood: good }), {
    hidden: false,
    text: 'backup failed',
    title: 'The last backup failed: ENOSPC: no space left. last good backup 2026-11-20 03:30. See gateway status on the box.',
  })
  t.match(backupNotice({ warning: 'failed', last: { ok: false }, lastGood: null }), { title: /unknown reason\. no good backup yet/ })
  t.same(backupNotice({ warning: 'stale', last: good, lastGood: good }), {
    hidden: false,
    text: 'backup overdue',
    title: 'Last good backup 2026-11-20 03:30: more than two days ago. See gateway status on the box.',
  })
})
