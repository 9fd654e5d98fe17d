// Each HQ instance's heartbeat in PostgreSQL (hq_instances), so the others can tell when one
// stops acknowledging (an 'instance' alert, lib/hq/alerts.ts): killed, stopped (SIGSTOP, a
// frozen VM), cut from the broker, or stuck in front of a batch it cannot commit.
import type { SqlClient } from '../store/postgres.ts'

/** What the ingest says of itself: connected and subscribed, and its messages going out. */
export interface IngestProgress {
  subscribed: boolean
  pending: number
  batches: number
}

/**
 * Whether the instance is acknowledging: subscribed, and either nothing waits or a batch
 * was committed since the previous beat (messages waiting with no batch committed is an
 * instance that has stopped acknowledging, whatever its process does).
 */
export function acknowledging(now: IngestProgress, previousBatches: number): boolean {
  return now.subscribed && (now.pending === 0 || now.batches !== previousBatches)
}

export async function heartbeat(db: SqlClient, instanceId: string): Promise<void> {
  await db.query('INSERT INTO hq_instances (instance_id) VALUES ($1) ON CONFLICT (instance_id) DO UPDATE SET seen_at = now()', [instanceId])
}

/** A retired instance: its heartbeat row goes, and with it the alert that it is silent. */
export async function retireInstance(db: SqlClient, instanceId: string): Promise<boolean> {
  const result = await db.query('DELETE FROM hq_instances WHERE instance_id = $1', [instanceId])
  return result.rowCount > 0
}
