// The last upgrade as the running gateway reports it (GET /api/v2/gateway, the fleet status):
// the journal `gateway upgrade` writes, read at each report (a small file; null when there is
// none, as on a box that was never upgraded or a gateway run from a checkout).
import type { UpgradeSummary } from '../../lib/release/summary.ts'
import { readJournal } from './journal.ts'
import { installLayout } from './layout.ts'

export function lastUpgrade(journalFile = installLayout().journal): UpgradeSummary | null {
  const journal = readJournal(journalFile)
  if (!journal) return null
  return { kind: journal.kind, state: journal.step, from: journal.from.version, to: journal.to.version, reason: journal.reason, at: journal.updatedAt }
}
