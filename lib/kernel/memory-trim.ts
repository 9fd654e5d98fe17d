// One memory-reducing collection, for a process that has just done its start-up. Starting
// allocates far more than it keeps (modules parsed and compiled, schemas built, stores read):
// V8 grows its young generation and old space for that burst and, with the process idle
// afterwards, does not give the room back by itself. A "last-resort" collection (what V8
// does on a low-memory notification) frees that garbage and shrinks the heap. It needs node's
// --expose-gc flag, which `npm start`, bin/gateway.js and the systemd unit pass (and the radio
// process inherits); without it nothing happens.

/** What the trim did: heap sizes before and after, and how long the collection took. */
export interface TrimResult {
  heapBefore: number
  heapAfter: number
  pauseMs: number
}

/** Collects all available garbage now; undefined when gc is not exposed. */
export function trimMemory(collect: NodeJS.GCFunction | undefined = globalThis.gc): TrimResult | undefined {
  if (typeof collect !== 'function') return undefined
  const heapBefore = process.memoryUsage().heapTotal
  const started = performance.now()
  collect({ type: 'major', execution: 'sync', flavor: 'last-resort' })
  return { heapBefore, heapAfter: process.memoryUsage().heapTotal, pauseMs: performance.now() - started }
}
