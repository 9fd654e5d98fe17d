// The one collection after start-up: a last-resort major collection when gc is exposed,
// nothing without it, never keeping the process alive.
import { execFileSync } from 'node:child_process'
import { pathToFileURL } from 'node:url'
import path from 'node:path'
import t from 'tap'
import { trimAfterStartUp, trimMemory, type TrimResult } from '../../../runtime/wiring/memory-trim.ts'

t.test('a memory-reducing major collection, measured', async (t) => {
  const calls: unknown[] = []
  const result = trimMemory(((options: unknown) => void calls.push(options)) as NodeJS.GCFunction)
  t.same(calls, [{ type: 'major', execution: 'sync', flavor: 'last-resort' }])
  t.match(result, { heapBefore: Number, heapAfter: Number, pauseMs: Number })
  t.equal(trimMemory(undefined), undefined, 'no gc exposed: nothing')
})

t.test('once, after the delay, on a timer that does not hold the process', async (t) => {
  const calls: unknown[] = []
  const reports: TrimResult[] = []
  const timer = trimAfterStartUp((r) => reports.push(r), 20, ((options: unknown) => void calls.push(options)) as NodeJS.GCFunction)
  t.equal(timer?.hasRef(), false)
  t.equal(calls.length, 0, 'not at once')
  await new Promise((resolve) => setTimeout(resolve, 60))
  t.equal(calls.length, 1)
  t.equal(reports.length, 1)
  t.equal(trimAfterStartUp(() => t.fail('never'), 0, undefined), undefined, 'no gc exposed: no timer')
})

t.test('with --expose-gc, the heap it leaves is no larger than before', async (t) => {
  const module = pathToFileURL(path.join(import.meta.dirname, '../../../runtime/wiring/memory-trim.ts')).href
  const script = `const { trimMemory } = await import(${JSON.stringify(module)}); let garbage = Array.from({ length: 200000 }, (_, i) => ({ i })); garbage = null; console.log(JSON.stringify(trimMemory()))`
  const out = execFileSync(process.execPath, ['--expose-gc', '--disable-warning=ExperimentalWarning', '--input-type=module', '-e', script], { encoding: 'utf8' })
  const result = JSON.parse(out) as TrimResult
  t.ok(result.heapAfter <= result.heapBefore, `${result.heapBefore} -> ${result.heapAfter}`)
})
