// Headquarters' tables in PostgreSQL. Created at start-up when missing (every statement is
// IF NOT EXISTS, so any instance may run it at any time); history partitions are created on
// demand, one per month, before a batch writes into a month that has none.
import type { Database, SqlClient } from '../store/postgres.ts'

export const schemaStatements = [
  // One row per site. last_seq: highest change applied; status_* from the latest status
  // applied; backlog_before: the backlog of the status before it (a growing backlog alerts).
  `CREATE TABLE IF NOT EXISTS hq_sites (
    site_id text PRIMARY KEY,
    online boolean NOT NULL DEFAULT false,
    reason text,
    device_id text,
    version text,
    started_at timestamptz,
    status_at timestamptz,
    status_received_at timestamptz,
    backlog integer NOT NULL DEFAULT 0,
    backlog_before integer NOT NULL DEFAULT 0,
    last_published_seq bigint,
    last_seq bigint NOT NULL DEFAULT 0,
    last_seen timestamptz NOT NULL DEFAULT now()
  )`,
  // The site's radio, from the latest status applied: null when unknown (a gateway that does
  // not report it); radio_down_since: when HQ first saw it down (HQ's clock, like the rest).
  // Added after the table's first release, so existing databases gain them too.
  `ALTER TABLE hq_sites ADD COLUMN IF NOT EXISTS radio_up boolean`,
  `ALTER TABLE hq_sites ADD COLUMN IF NOT EXISTS radio_down_since timestamptz`,
  // From the status, what the site can still replay (lib/hq/replay.ts); lost_*: the last
  // range it could not replay (an alert, alerts.ts).
  `ALTER TABLE hq_sites ADD COLUMN IF NOT EXISTS replay_after bigint`,
  `ALTER TABLE hq_sites ADD COLUMN IF NOT EXISTS lost_after bigint`,
  `ALTER TABLE hq_sites ADD COLUMN IF NOT EXISTS lost_through bigint`,
  `ALTER TABLE hq_sites ADD COLUMN IF NOT EXISTS lost_at timestamptz`,
  // The site's own zone and target, from its status (null: an older gateway that does not
  // send them; HQ's configured ones apply).
  `ALTER TABLE hq_sites ADD COLUMN IF NOT EXISTS timezone text`,
  `ALTER TABLE hq_sites ADD COLUMN IF NOT EXISTS target_seconds integer`,
  // Is anything missing (lib/hq/chain.ts)? A table of its own: the apply never locks it, so
  // storing the chains never holds up ingest. chain_seq: every change the site published up
  // to it is here (null until its first message that names the change before it, prevSeq);
  // chain_events: the (prevSeq, seq] spans of changes above it that arrived, chain_cleared
  // and chain_history: the seqs of clearings and of summaries above it (a clearing is whole
  // with its summary), as inclusive ranges '{[6,9],[12,12]}' (the arithmetic is chain.ts's);
  // gap_since: since when something is missing without chain_seq moving;
  // replay_requested_at, replay_requests: the last request to the site and how many.
  `CREATE TABLE IF NOT EXISTS hq_site_chains (
    site_id text PRIMARY KEY,
    chain_seq bigint,
    chain_events text NOT NULL DEFAULT '{}',
    chain_cleared text NOT NULL DEFAULT '{}',
    chain_history text NOT NULL DEFAULT '{}',
    gap_since timestamptz,
    replay_requested_at timestamptz,
    replay_requests integer NOT NULL DEFAULT 0
  )`,
  // Every order a site has open (and, as tombstones, the ones it cleared lately, so an older
  // change arriving after the clearing cannot bring the order back).
  `CREATE TABLE IF NOT EXISTS hq_live_orders (
    site_id text NOT NULL,
    uuid text NOT NULL,
    seq bigint NOT NULL,
    name text NOT NULL,
    order_type text NOT NULL,
    location_name text,
    state text NOT NULL,
    created_at timestamptz NOT NULL,
    state_started timestamptz NOT NULL,
    change text NOT NULL,
    PRIMARY KEY (site_id, uuid)
  )`,
  `CREATE INDEX IF NOT EXISTS hq_live_orders_open ON hq_live_orders (site_id, created_at) WHERE state <> 'cleared'`,
  // Tombstones by age, for the purge (lib/hq/maintenance.ts).
  `CREATE INDEX IF NOT EXISTS hq_live_orders_cleared ON hq_live_orders (state_started) WHERE state = 'cleared'`,
  // Cleared orders, partitioned by the month they were cleared (UTC). local_day and
  // local_hour are the site's own (from the offset its summary carries).
  `CREATE TABLE IF NOT EXISTS hq_history (
    site_id text NOT NULL,
    uuid text NOT NULL,
    seq bigint NOT NULL,
    name text NOT NULL,
    order_type text NOT NULL,
    location_name text,
    order_started timestamptz NOT NULL,
    order_located timestamptz,
    order_cleared timestamptz NOT NULL,
    local_day date NOT NULL,
    local_hour smallint NOT NULL,
    PRIMARY KEY (site_id, uuid, order_cleared)
  ) PARTITION BY RANGE (order_cleared)`,
  // Per site, day and hour (site's local): the figures the board and statistics read, kept
  // up to date in the transaction that inserts the history rows they count.
  `CREATE TABLE IF NOT EXISTS hq_site_hours (
    site_id text NOT NULL,
    day date NOT NULL,
    hour smallint NOT NULL,
    orders integer NOT NULL,
    located integer NOT NULL,
    to_table_seconds double precision NOT NULL,
    late integer NOT NULL,
    PRIMARY KEY (day, site_id, hour)
  )`,
  // The same figures per site and day, and for the whole chain per day and hour: what
  // chain-wide statistics read (1,000 sites make 1,000 rows a day here, 17,000 above).
  `CREATE TABLE IF NOT EXISTS hq_site_days (
    day date NOT NULL,
    site_id text NOT NULL,
    orders integer NOT NULL,
    located integer NOT NULL,
    to_table_seconds double precision NOT NULL,
    late integer NOT NULL,
    PRIMARY KEY (day, site_id)
  )`,
  `CREATE TABLE IF NOT EXISTS hq_chain_hours (
    day date NOT NULL,
    hour smallint NOT NULL,
    orders integer NOT NULL,
    located integer NOT NULL,
    to_table_seconds double precision NOT NULL,
    late integer NOT NULL,
    PRIMARY KEY (day, hour)
  )`,
  // HQ's own API tokens (hashes only).
  `CREATE TABLE IF NOT EXISTS hq_tokens (
    id text PRIMARY KEY,
    name text NOT NULL,
    hash text NOT NULL UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now(),
    last_used timestamptz
  )`,
  // Alerts raised (cleared_at null while they hold).
  `CREATE TABLE IF NOT EXISTS hq_alerts (
    id bigserial PRIMARY KEY,
    site_id text NOT NULL,
    kind text NOT NULL,
    detail text NOT NULL,
    raised_at timestamptz NOT NULL DEFAULT now(),
    cleared_at timestamptz
  )`,
  `CREATE UNIQUE INDEX IF NOT EXISTS hq_alerts_open ON hq_alerts (site_id, kind) WHERE cleared_at IS NULL`,
  // Every HQ instance's heartbeat: seen_at moves while it is subscribed and acknowledging
  // (lib/hq/instances.ts). One that stops raises an 'instance' alert; a retired instance's
  // row is deleted (docs/hq.md).
  `CREATE TABLE IF NOT EXISTS hq_instances (
    instance_id text PRIMARY KEY,
    seen_at timestamptz NOT NULL DEFAULT now()
  )`,
  // Signed webhook deliveries of alerts, the gateway's outbox rules: oldest first, retried.
  `CREATE TABLE IF NOT EXISTS hq_webhook_outbox (
    id bigserial PRIMARY KEY,
    url text NOT NULL,
    message_id text NOT NULL,
    body text NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    next_at timestamptz NOT NULL DEFAULT now(),
    last_error text
  )`,
  // Rollouts (issue 46; lib/hq/rollouts.ts). A release uploaded and verified: its archive in
  // 1 MiB chunks (any instance serves it, by range), the signature it came with, and the
  // secret a site presents to download it (told to the sites in their rollout command).
  `CREATE TABLE IF NOT EXISTS hq_releases (
    id bigserial PRIMARY KEY,
    version text NOT NULL,
    file text NOT NULL,
    sha256 text NOT NULL UNIQUE,
    size bigint NOT NULL,
    key_id text NOT NULL,
    signature text NOT NULL,
    download_secret text NOT NULL,
    uploaded_at timestamptz NOT NULL DEFAULT now()
  )`,
  `CREATE TABLE IF NOT EXISTS hq_release_chunks (
    release_id bigint NOT NULL REFERENCES hq_releases (id) ON DELETE CASCADE,
    n integer NOT NULL,
    data bytea NOT NULL,
    PRIMARY KEY (release_id, n)
  )`,
  // A rollout and its plan (waves: a JSON array of arrays of site ids); its state machine is lib/hq/rollout-machine.ts.
  `CREATE TABLE IF NOT EXISTS hq_rollouts (
    id bigserial PRIMARY KEY,
    release_id bigint NOT NULL REFERENCES hq_releases (id),
    state text NOT NULL,
    waves text NOT NULL,
    current_wave integer NOT NULL DEFAULT 0,
    wave_started_at timestamptz,
    wave_done_at timestamptz,
    soak_seconds integer NOT NULL,
    offline text NOT NULL,
    reason text,
    started_by text,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
  )`,
  // At most one rollout that is not over.
  `CREATE UNIQUE INDEX IF NOT EXISTS hq_rollouts_one_active ON hq_rollouts ((true)) WHERE state IN ('running', 'paused', 'halted')`,
  // Each site of a rollout: its wave, its state, and the command last published to it
  // (published_attempt, published_action: what the broker holds retained for it).
  `CREATE TABLE IF NOT EXISTS hq_rollout_sites (
    rollout_id bigint NOT NULL REFERENCES hq_rollouts (id) ON DELETE CASCADE,
    site_id text NOT NULL,
    wave integer NOT NULL,
    state text NOT NULL,
    reason text,
    attempt integer NOT NULL DEFAULT 1,
    wanted_action text,
    published_action text,
    published_attempt integer,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (rollout_id, site_id)
  )`,
  // What the site's status last said of a rollout: {rolloutId, attempt, state, reason, version}.
  `ALTER TABLE hq_sites ADD COLUMN IF NOT EXISTS rollout_report text`,
  // HQ tokens' scope: 'read' (the board and API reads) or 'admin' (also releases and rollouts).
  `ALTER TABLE hq_tokens ADD COLUMN IF NOT EXISTS scope text NOT NULL DEFAULT 'read'`,
]

/** Concurrent CREATE … IF NOT EXISTS can still collide on the catalog's unique index. */
const alreadyThere = new Set(['42P07', '23505', '42710'])

export async function ensureSchema(db: Database): Promise<void> {
  // One instance at a time (the lock ends with the transaction): two creating the same
  // table at once would collide on the catalog.
  await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(7224001)')
    for (const statement of schemaStatements) await tx.query(statement)
  })
}

/** hq_history_2026_11 for any instant in November 2026 (UTC). */
export function partitionOf(ms: number): { name: string; from: string; to: string } {
  const date = new Date(ms)
  const year = date.getUTCFullYear()
  const month = date.getUTCMonth()
  const from = new Date(Date.UTC(year, month, 1)).toISOString()
  const to = new Date(Date.UTC(year, month + 1, 1)).toISOString()
  return { name: `hq_history_${year}_${String(month + 1).padStart(2, '0')}`, from, to }
}

/** Creates the month's partition when it is missing; remembers the ones known to exist. */
export class Partitions {
  readonly #known = new Set<string>()

  async ensure(db: SqlClient, instants: number[]): Promise<void> {
    const wanted = new Map(instants.map((ms) => partitionOf(ms)).map((p) => [p.name, p]))
    for (const partition of wanted.values()) {
      if (this.#known.has(partition.name)) continue
      try {
        await db.query(`CREATE TABLE IF NOT EXISTS ${partition.name} PARTITION OF hq_history FOR VALUES FROM ('${partition.from}') TO ('${partition.to}')`)
      } catch (error) {
        if (!alreadyThere.has((error as { code?: string }).code ?? '')) throw error
      }
      this.#known.add(partition.name)
    }
  }

  /** After a restart of PostgreSQL or a dropped partition, ask again. */
  forget(): void {
    this.#known.clear()
  }
}
