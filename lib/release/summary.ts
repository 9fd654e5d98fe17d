// The last upgrade as the gateway reports it (GET /api/v2/gateway `upgrade`, the fleet status
// message): read from the upgrade journal that `gateway upgrade` writes (runtime/upgrade/).

export interface UpgradeSummary {
  /** 'upgrade' or 'rollback' (by hand). */
  kind: string
  /** The journal's step: 'committed', 'rolled-back', 'abandoned', 'rollback-failed', or a step in progress. */
  state: string
  from: string
  to: string
  /** Why it was rolled back, abandoned or could not be rolled back; null otherwise. */
  reason: string | null
  /** When the state was written (ISO 8601). */
  at: string
}
