// keepTickShape: with one nextTick entry kept, a memory-reducing collection no longer sends
// Node's nextTick to V8's slow path. Each case runs in a child process (V8's feedback is
// per process), asks V8 for the state of nextTick's object-literal sites with
// --allow-natives-syntax, and compares a child that keeps an entry with one that does not.
import { execFileSync } from 'node:child_process'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { keepTickShape } from '../../../runtime/wiring/tick-shape.ts'
import { withoutRunnerHooks } from '../../helpers/process.ts'

const moduleUrl = pathToFileURL(path.join(import.meta.dirname, '../../../runtime/wiring/tick-shape.ts')).href
const sitesUrl = pathToFileURL(path.join(import.meta.dirname, '../../helpers/tick-shape-sites.ts')).href

/** The states of nextTick's computed-key literal sites after ticks and trim-like collections. */
function literalSiteStates(keep: boolean): string[] {
  const script = `
    const { keepTickShape } = await import(${JSON.stringify(moduleUrl)})
    const { nextTickSitesAfterCollections } = await import(${JSON.stringify(sitesUrl)})
    if (${keep}) keepTickShape()
    console.log(JSON.stringify(await nextTickSitesAfterCollections()))
  `
  const flags = ['--allow-natives-syntax', '--fuzzing', '--expose-gc', '--disable-warning=ExperimentalWarning', '--input-type=module', '-e', script]
  // Without the runner's preloads (they keep objects of their own alive) and its coverage
  // (under which these sites start megamorphic, collection or not; measured).
  const { command, args } = withoutRunnerHooks(flags)
  return JSON.parse(execFileSync(command, args, { encoding: 'utf8' })) as string[]
}

t.test('without a kept entry, the collection leaves nextTick megamorphic (what this works around)', async (t) => {
  const states = literalSiteStates(false)
  t.ok(states.length >= 2, `nextTick still builds its entry as a literal with computed keys: ${states}`)
  t.ok(states.includes('MEGAMORPHIC'), `if this fails, Node or V8 no longer needs keepTickShape: ${states}`)
})

t.test('with one entry kept, every literal site of nextTick stays monomorphic', async (t) => {
  const states = literalSiteStates(true)
  t.ok(states.length >= 2)
  t.same(new Set(states), new Set(['MONOMORPHIC']), String(states))
})

t.test('captures one entry, once', async (t) => {
  const kept = keepTickShape()
  t.type(kept, 'object')
  t.equal(keepTickShape(), kept, 'the same entry on a second call')
  const symbols = Object.getOwnPropertySymbols(kept).map(String)
  t.ok(symbols.includes('Symbol(async_id_symbol)'), String(symbols))
})
