// One memory-reducing collection a little after start-up. Starting the gateway allocates far
// more than it keeps (modules parsed and compiled, schemas built, the stores read): V8 grows
// its young generation and old space for that burst and, with the gateway idle afterwards,
// does not give the room back by itself (measured: still 112 MB after 30 s idle). A
// "last-resort" collection (what V8 does on a low-memory notification) frees that garbage
// and shrinks the heap: about 18 MB less resident memory on an idle gateway, once, for a
// pause of about 0.1 s (measured on a busy 2-core VM). It needs node's --expose-gc flag,
// which `npm start`, bin/gateway.js and the systemd unit pass; without it nothing happens.

export const trimDelayMs = 2_000

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

/** Runs trimMemory once, trimDelayMs after the call (never keeping the process alive). */
export function trimAfterStartUp(report: (result: TrimResult) => void, delayMs = trimDelayMs, collect: NodeJS.GCFunction | undefined = globalThis.gc): NodeJS.Timeout | undefined {
  if (typeof collect !== 'function') return undefined
  const timer = setTimeout(() => {
    const result = trimMemory(collect)
    if (result) report(result)
  }, delayMs)
  timer.unref()
  return timer
}
