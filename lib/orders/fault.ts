// Crash points: places in the orders service where a test may stop the gateway as a power
// cut would (tests/runtime/fixtures/faulty-gateway.ts kills the process there), to prove
// that a restart repairs what the crash interrupted. Production passes no fault hook, so
// reaching a point does nothing.

export const faultPoints = ['crash-after-history-insert'] as const

export type FaultPoint = (typeof faultPoints)[number]

/** Called at each crash point; injected by tests only. */
export type FaultHook = (point: FaultPoint) => void
