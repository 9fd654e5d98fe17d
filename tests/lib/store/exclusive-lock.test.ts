import path from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import t from 'tap'
import { takeExclusiveLock } from '../../../lib/store/exclusive-lock.ts'

t.test('one holder at a time; the lock is free again once the holder closes', async (t) => {
  const file = path.join(t.testdir(), 'x.lock')
  const first = new DatabaseSync(file, { timeout: 0 })
  t.equal(takeExclusiveLock(first), true)
  const second = new DatabaseSync(file, { timeout: 0 })
  t.equal(takeExclusiveLock(second), false, 'busy: another connection holds it')
  t.equal(second.isOpen, false, 'the refused connection is closed')
  first.close()
  const third = new DatabaseSync(file, { timeout: 0 })
  t.equal(takeExclusiveLock(third), true)
  third.close()
})
