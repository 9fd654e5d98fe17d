// One memory-reducing collection: a last-resort major collection when gc is exposed, nothing
// without it.
import { execFileSync } from 'node:child_process'
import { pathToFileURL } from 'node:url'
import path from 'node:path'
import t from 'tap'
import { trimMemory, type TrimResult } from '../../../lib/kernel/memory-trim.ts'

t.test('a memory-reducing major collection, measured', async (t) => {
  const calls: unknown[] = []
  const result = trimMemory(((options: unknown) => void calls.push(options)) as NodeJS.GCFunction)
  t.same(calls, [{ type: 'major', execution: 'sync', flavor: 'last-resort' }])
  t.match(result, { heapBefore: Number, heapAfter: Number, pauseMs: Number })
  t.equal(trimMemory(undefined), undefined, 'no gc exposed: nothing')
})

t.test('with --expose-gc, the heap it leaves is no larger than before', async (t) => {
  const module = pathToFileURL(path.join(import.meta.dirname, '../../../lib/kernel/memory-trim.ts')).href
  const script = `const { trimMemory } = await import(${JSON.stringify(module)}); let garbage = Array.from({ length: 200000 }, (_, i) => ({ i })); garbage = null; console.log(JSON.stringify(trimMemory()))`
  const out = execFileSync(process.execPath, ['--expose-gc', '--disable-warning=ExperimentalWarning', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  })
  const result = JSON.parse(out) as TrimResult
  t.ok(result.heapAfter <= result.heapBefore, `${result.heapBefore} -> ${result.heapAfter}`)
})
