// The gateway's one collection after start-up: once, after a delay, never keeping the
// process alive (the collection itself: tests/lib/kernel/memory-trim.test.ts).
import t from 'tap'
import type { TrimResult } from '../../../lib/kernel/memory-trim.ts'
import { trimAfterStartUp } from '../../../runtime/wiring/memory-trim.ts'

t.test('once, after the delay, on a timer that does not hold the process', async (t) => {
  const calls: unknown[] = []
  const reports: TrimResult[] = []
  const timer = trimAfterStartUp((r) => reports.push(r), 20, ((options: unknown) => void calls.push(options)) as NodeJS.GCFunction)
  t.equal(timer?.hasRef(), false)
  t.equal(calls.length, 0, 'not at once')
  await new Promise((resolve) => setTimeout(resolve, 60))
  t.same(calls, [{ type: 'major', execution: 'sync', flavor: 'last-resort' }])
  t.equal(reports.length, 1)
  t.equal(
    trimAfterStartUp(() => t.fail('never'), 0, undefined),
    undefined,
    'no gc exposed: no timer',
  )
})
