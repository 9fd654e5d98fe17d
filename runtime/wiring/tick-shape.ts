// Keeps one of Node's `process.nextTick` queue entries alive for the life of the process, so
// that V8 never collects the hidden class ("map") those entries share.
//
// Why: Node builds each entry as an object literal with computed keys (`{ [async_id_symbol]:
// …, [trigger_async_id_symbol]: …, … }`), and V8 remembers one map per such key for the
// fast path; it has no second chance: a different map sends that site to the runtime for
// good ("megamorphic"). A memory-reducing collection (the one after start-up,
// memory-trim.ts, and V8's own memory reducer on a gateway gone idle) frees maps that no
// live object uses, and between requests no entry is alive, so the next entry gets a new
// map and every later `nextTick` goes through the runtime. Node's HTTP server calls it
// about seven times a request: measured, about 4 µs more CPU a request on a 2-core VM
// (17-20 µs against 13-15 for the same handler;
// docs/decisions/0012-memory-trim-and-nextTick-entry.md). One entry kept here keeps its map,
// and the maps it was built through, alive.
import { createHook } from 'node:async_hooks'

let kept: object | undefined

/** Captures one nextTick entry (once) and keeps it; undefined if Node makes no such entry. */
export function keepTickShape(): object | undefined {
  if (kept !== undefined) return kept
  // An init hook sees each entry as it is made; it is enabled for this one call only, since
  // hooks slow every asynchronous step while enabled.
  const hook = createHook({
    init(_asyncId, type, _triggerAsyncId, resource) {
      if (type === 'TickObject' && kept === undefined) kept = resource
    },
  })
  hook.enable()
  try {
    process.nextTick(noop)
  } finally {
    hook.disable()
  }
  return kept
}

function noop(): void {}
