// What `gateway status` says of the last upgrade, for each way it can end (or be under way).
import t from 'tap'
import { describeJournal, type UpgradeJournal } from '../../../runtime/upgrade/journal.ts'

const base: UpgradeJournal = {
  step: 'committed',
  kind: 'upgrade',
  from: { version: '1.0.0', dir: '1.0.0-a', dataFormat: 1 },
  to: { version: '1.1.0', dir: '1.1.0-b', dataFormat: 1 },
  previous: null,
  backup: null,
  startedAt: '2026-12-02T04:00:00.000Z',
  updatedAt: '2026-12-02T04:01:00.000Z',
  reason: null,
}

t.test('one line per outcome', async (t) => {
  t.equal(describeJournal(base), 'last upgrade from 1.0.0 to 1.1.0: done 2026-12-02T04:01:00.000Z (1.0.0 kept for gateway upgrade --rollback)')
  t.equal(describeJournal({ ...base, kind: 'rollback' }), 'last rollback from 1.0.0 to 1.1.0: done 2026-12-02T04:01:00.000Z')
  t.equal(
    describeJournal({ ...base, step: 'rolled-back', reason: 'r' }),
    'last upgrade from 1.0.0 to 1.1.0 FAILED and was rolled back 2026-12-02T04:01:00.000Z: r',
  )
  t.equal(
    describeJournal({ ...base, step: 'abandoned', reason: 'r' }),
    'last upgrade from 1.0.0 to 1.1.0 was abandoned before the switch 2026-12-02T04:01:00.000Z: r',
  )
  t.equal(
    describeJournal({ ...base, step: 'rollback-failed', reason: 'r' }),
    'last upgrade from 1.0.0 to 1.1.0 FAILED and the rollback failed too 2026-12-02T04:01:00.000Z: r',
  )
  t.equal(describeJournal({ ...base, step: 'switched' }), 'upgrade from 1.0.0 to 1.1.0 in progress (step switched, since 2026-12-02T04:00:00.000Z)')
})
