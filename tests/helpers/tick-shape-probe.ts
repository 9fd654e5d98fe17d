// Loaded with --import into a gateway under test that runs with --allow-natives-syntax
// --fuzzing --expose-gc: on SIGUSR2 it runs rounds of nextTick entries and memory-reducing
// collections (tick-shape-sites.ts) and writes to $TICK_SHAPE_OUT the states V8 gives
// nextTick's computed-key literal sites. tests/helpers/tick-shape-run.ts reads it.
import { renameSync, writeFileSync } from 'node:fs'
import { nextTickSitesAfterCollections } from './tick-shape-sites.ts'

const out = process.env.TICK_SHAPE_OUT
if (out) {
  process.on('SIGUSR2', async () => {
    const states = await nextTickSitesAfterCollections()
    // Whole or not at all: the test waits for the file to appear.
    writeFileSync(`${out}.part`, JSON.stringify(states))
    renameSync(`${out}.part`, out)
  })
}
