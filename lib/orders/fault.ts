// Test-only fault injection. GATEWAY_FAULT=<point> makes the gateway kill itself (SIGKILL,
// like a power cut) when it reaches that point, so a test can prove that a restart repairs
// what the crash interrupted. Unset in production: then no point does anything.

export const faultPoints = ['crash-after-history-insert'] as const

export type FaultPoint = (typeof faultPoints)[number]

/** The crash function for the GATEWAY_FAULT value, or undefined when no fault is enabled. */
export function faultFromEnv(value: string | undefined, kill: () => void = () => process.kill(process.pid, 'SIGKILL')): ((point: FaultPoint) => void) | undefined {
  if (!value) return undefined
  if (!(faultPoints as readonly string[]).includes(value)) throw new Error(`GATEWAY_FAULT: unknown fault point "${value}"`)
  return (point) => {
    if (point === value) kill()
  }
}
