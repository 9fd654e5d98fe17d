// What V8 says of the computed-key sites of the object literal Node's `process.nextTick`
// builds each queue entry from ("MONOMORPHIC", "MEGAMORPHIC"), after rounds of many ticks and
// a memory-reducing collection between them (what the gateway's trim after start-up and V8's
// own memory reducer do). For a process run with --allow-natives-syntax --fuzzing --expose-gc
// (--fuzzing lets %GetFeedback run in a release build of V8); used by the tick-shape probe
// and tests/runtime/wiring/tick-shape.test.ts.

// Natives syntax through the Function constructor: the type stripper would not parse it.
const feedbackOf = new Function('f', 'return %GetFeedback(f)') as (f: unknown) => [string, string][] | undefined

export function nextTickLiteralSites(): string[] {
  return (feedbackOf(process.nextTick) ?? []).filter((slot) => slot?.[0] === 'DefineKeyedOwnPropertyInLiteral').map((slot) => slot[1].split('\n')[0]!)
}

function ticks(n: number): Promise<void> {
  return new Promise<void>((resolve) => {
    let left = n
    for (let i = 0; i < n; i++) process.nextTick(() => --left === 0 && resolve())
  })
}

async function manyTicks(): Promise<void> {
  for (let i = 0; i < 50; i++) await ticks(100)
}

/**
 * Rounds of ticks with a last-resort collection between them, then the sites' states.
 * Whether an entry happens to be alive at a collection varies, and one collection that finds
 * none is enough: the rounds stop once a site is megamorphic. Five rounds once all found an
 * entry alive (one CI run in about twenty), so there are twenty.
 */
export async function nextTickSitesAfterCollections(): Promise<string[]> {
  for (let round = 0; round < 20 && !nextTickLiteralSites().includes('MEGAMORPHIC'); round++) {
    await manyTicks()
    await new Promise((resolve) => setImmediate(resolve))
    globalThis.gc!({ type: 'major', execution: 'sync', flavor: 'last-resort' })
    await manyTicks()
  }
  return nextTickLiteralSites()
}
