// Loaded with --import into a gateway under test that runs with --allow-natives-syntax
// --fuzzing --expose-gc: on SIGUSR2 it makes Node queue many nextTick entries, collects all
// garbage as the start-up trim does (rounds of both: one collection that finds no entry alive
// is enough), and writes to $TICK_SHAPE_OUT the states V8 gives nextTick's computed-key
// literal sites ("MONOMORPHIC", "MEGAMORPHIC"). tests/runtime/cli-tick-shape.test.ts reads it.
import { renameSync, writeFileSync } from 'node:fs'

const out = process.env.TICK_SHAPE_OUT
if (out) {
  // Natives syntax through the Function constructor: the type stripper would not parse it.
  const feedbackOf = new Function('f', 'return %GetFeedback(f)') as (f: unknown) => [string, string][] | undefined
  const states = () =>
    (feedbackOf(process.nextTick) ?? []).filter((slot) => slot?.[0] === 'DefineKeyedOwnPropertyInLiteral').map((slot) => slot[1].split('\n')[0]!)
  const ticks = (n: number) =>
    new Promise<void>((resolve) => {
      let left = n
      for (let i = 0; i < n; i++) process.nextTick(() => --left === 0 && resolve())
    })
  process.on('SIGUSR2', async () => {
    for (let round = 0; round < 5 && !states().includes('MEGAMORPHIC'); round++) {
      for (let i = 0; i < 50; i++) await ticks(100)
      await new Promise((resolve) => setImmediate(resolve))
      globalThis.gc!({ type: 'major', execution: 'sync', flavor: 'last-resort' })
    }
    for (let i = 0; i < 50; i++) await ticks(100)
    // Whole or not at all: the test waits for the file to appear.
    writeFileSync(`${out}.part`, JSON.stringify(states()))
    renameSync(`${out}.part`, out)
  })
}
