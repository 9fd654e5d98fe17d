// Crash points: places in the orders service where a test may stop the gateway as a power
// cut would (tests/runtime/fixtures/faulty-gateway.ts kills the process there), to prove
// that a restart repairs what the crash interrupted. Production passes no fault hook, so
// reaching a point does nothing.
//  - crash-after-history-insert: a clear has put its summary into history, and the order
//    is still in the active store.
//  - crash-before-paging-is-durable: an operation that pages or stops a tracker has
//    appended its writes; they are not yet known to be on disk.

export const faultPoints = ['crash-after-history-insert', 'crash-before-paging-is-durable'] as const

export type FaultPoint = (typeof faultPoints)[number]

/** Called at each crash point; injected by tests only. */
export type FaultHook = (point: FaultPoint) => void
