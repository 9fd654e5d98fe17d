// The fleet bridge's state as the gateway shows it: data only.

export type FleetState = 'disabled' | 'connecting' | 'connected' | 'down' | 'auth-failed' | 'tls-failed'

export interface FleetStatus {
  state: FleetState
  /** Order changes recorded but not yet acknowledged by the broker. */
  backlog: number
  lastError: string | null
  /** Highest seq the broker acknowledged (kept across restarts); null before the first. */
  lastPublishedSeq: number | null
}
