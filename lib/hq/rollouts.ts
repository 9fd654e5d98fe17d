// Rollouts in PostgreSQL (issue 46): started from a stored release and a wave plan
// (rollout-plan.ts), driven by whichever HQ instance's timer locks the rollout first
// (FOR UPDATE SKIP LOCKED) through the pure state machine (rollout-machine.ts). What each site
// must be told is written in the same transaction (wanted_action); the instance publishes it
// after the commit and records what the broker now holds (published_*), so a command lost
// with an instance is published again by the next round of any instance.
import type { Database, SqlClient } from '../store/postgres.ts'
import { notifyChannel, notifyPayload } from './apply.ts'
import { getRelease, type Release } from './releases.ts'
import {
  advance,
  type MachineRollout,
  type MachineSite,
  type OfflinePolicy,
  operate,
  type Operator,
  type ReportedState,
  type RolloutState,
  type SiteRolloutState,
  type Step,
} from './rollout-machine.ts'
import { planWaves, type WaveSpec } from './rollout-plan.ts'
import type { RolloutCommand } from '../fleet/messages.ts'

export interface StartRollout extends WaveSpec {
  releaseId: number
  /** The sites to roll out to (default: every site HQ knows). */
  sites?: string[]
  soakSeconds: number
  offline: OfflinePolicy
  startedBy: string
}

export interface RolloutSiteView {
  siteId: string
  wave: number
  state: SiteRolloutState
  reason: string | null
  attempt: number
  /** The version the site's status says it runs. */
  version: string | null
  online: boolean
}

export interface RolloutView {
  id: number
  release: Pick<Release, 'id' | 'version' | 'sha256' | 'size'>
  state: RolloutState
  reason: string | null
  waves: string[][]
  currentWave: number
  waveStartedAt: string | null
  waveDoneAt: string | null
  soakSeconds: number
  offline: OfflinePolicy
  startedBy: string | null
  createdAt: string
  updatedAt: string
  sites: RolloutSiteView[]
}

export interface Publication {
  rolloutId: number
  siteId: string
  /** 'clear': the rollout is done, its retained command is removed (a site installed afresh later must not act on it). */
  action: 'upgrade' | 'stand-down' | 'clear'
  attempt: number
  /** null: an empty retained message (clear). */
  payload: RolloutCommand | null
}

interface RolloutRow {
  id: string
  release_id: string
  state: RolloutState
  waves: string
  current_wave: number
  wave_started_at: Date | null
  wave_done_at: Date | null
  soak_seconds: number
  offline: OfflinePolicy
  reason: string | null
  started_by: string | null
  created_at: Date
  updated_at: Date
}

interface SiteRow {
  site_id: string
  wave: number
  state: SiteRolloutState
  reason: string | null
  attempt: number
  online: boolean | null
  version: string | null
  rollout_report: string | null
}

export class RolloutInputError extends Error {
  override name = 'RolloutInputError'
}

export class RolloutActiveError extends Error {
  override name = 'RolloutActiveError'
}

export async function startRollout(db: Database, input: StartRollout): Promise<number> {
  return db.transaction(async (tx) => {
    const { rows: releases } = await tx.query<{ id: string }>('SELECT id FROM hq_releases WHERE id = $1', [input.releaseId])
    if (!releases[0]) throw new RolloutInputError(`no release ${input.releaseId}`)
    let sites = input.sites
    if (!sites) sites = (await tx.query<{ site_id: string }>('SELECT site_id FROM hq_sites')).rows.map((row) => row.site_id)
    else {
      const { rows } = await tx.query<{ site_id: string }>('SELECT site_id FROM hq_sites WHERE site_id = ANY($1::text[])', [sites])
      const known = new Set(rows.map((row) => row.site_id))
      const unknown = sites.filter((site) => !known.has(site))
      if (unknown.length) throw new RolloutInputError(`unknown site(s): ${unknown.join(', ')}`)
    }
    let waves: string[][]
    try {
      waves = planWaves(sites, input)
    } catch (error) {
      throw new RolloutInputError((error as Error).message)
    }
    let id: string
    try {
      const { rows } = await tx.query<{ id: string }>(
        `INSERT INTO hq_rollouts (release_id, state, waves, soak_seconds, offline, started_by) VALUES ($1, 'running', $2, $3, $4, $5) RETURNING id`,
        [input.releaseId, JSON.stringify(waves), input.soakSeconds, input.offline, input.startedBy],
      )
      id = rows[0]!.id
    } catch (error) {
      if ((error as { code?: string }).code === '23505') throw new RolloutActiveError('another rollout is running, paused or halted')
      throw error
    }
    const siteIds = waves.flat()
    const waveOf = waves.flatMap((wave, index) => wave.map(() => index))
    await tx.query(`INSERT INTO hq_rollout_sites (rollout_id, site_id, wave, state) SELECT $1, s, w, 'pending' FROM unnest($2::text[], $3::int[]) AS u(s, w)`, [
      id,
      siteIds,
      waveOf,
    ])
    return Number(id)
  })
}

const toMachine = (row: RolloutRow, version: string): MachineRollout => ({
  id: Number(row.id),
  version,
  state: row.state,
  waves: JSON.parse(row.waves) as string[][],
  currentWave: row.current_wave,
  waveStartedAt: row.wave_started_at?.getTime() ?? null,
  waveDoneAt: row.wave_done_at?.getTime() ?? null,
  soakMs: row.soak_seconds * 1000,
  offline: row.offline,
  reason: row.reason,
})

const reportStates: ReadonlySet<string> = new Set(['downloading', 'waiting-for-window', 'upgrading', 'done', 'failed', 'cancelled'])

/** The site's report, when it is about this rollout and this attempt. */
export function reportFor(text: string | null, rolloutId: number, attempt: number): MachineSite['report'] {
  if (!text) return null
  try {
    const report = JSON.parse(text) as { rolloutId?: unknown; attempt?: unknown; state?: unknown; reason?: unknown }
    if (report.rolloutId !== rolloutId || report.attempt !== attempt || typeof report.state !== 'string' || !reportStates.has(report.state)) return null
    return { state: report.state as ReportedState, reason: typeof report.reason === 'string' ? report.reason : null }
  } catch {
    return null
  }
}

async function loadSites(tx: SqlClient, rolloutId: number): Promise<MachineSite[]> {
  const { rows } = await tx.query<SiteRow>(
    `SELECT rs.site_id, rs.wave, rs.state, rs.reason, rs.attempt, s.online, s.version, s.rollout_report
     FROM hq_rollout_sites rs LEFT JOIN hq_sites s ON s.site_id = rs.site_id WHERE rs.rollout_id = $1 ORDER BY rs.wave, rs.site_id`,
    [rolloutId],
  )
  return rows.map((row) => ({
    siteId: row.site_id,
    wave: row.wave,
    state: row.state,
    reason: row.reason,
    attempt: row.attempt,
    online: row.online === true,
    version: row.version,
    report: reportFor(row.rollout_report, rolloutId, row.attempt),
  }))
}

/** Writes what a step changed: the rollout, the sites whose state moved, the commands wanted. */
async function saveStep(tx: SqlClient, before: MachineSite[], step: Step, nowMs: number, wasState: RolloutState): Promise<void> {
  const r = step.rollout
  await tx.query(`UPDATE hq_rollouts SET state = $2, current_wave = $3, wave_started_at = $4, wave_done_at = $5, reason = $6, updated_at = $7 WHERE id = $1`, [
    r.id,
    r.state,
    r.currentWave,
    r.waveStartedAt === null ? null : new Date(r.waveStartedAt),
    r.waveDoneAt === null ? null : new Date(r.waveDoneAt),
    r.reason,
    new Date(nowMs),
  ])
  const old = new Map(before.map((site) => [site.siteId, site]))
  for (const site of step.sites) {
    const was = old.get(site.siteId)!
    if (was.state === site.state && was.reason === site.reason && was.attempt === site.attempt) continue
    await tx.query('UPDATE hq_rollout_sites SET state = $3, reason = $4, attempt = $5, updated_at = $6 WHERE rollout_id = $1 AND site_id = $2', [
      r.id,
      site.siteId,
      site.state,
      site.reason,
      site.attempt,
      new Date(nowMs),
    ])
  }
  // The boards show each site's rollout state: tell them which sites moved (at the commit).
  const moved = step.sites.filter((site) => {
    const was = old.get(site.siteId)!
    return was.state !== site.state || was.reason !== site.reason
  })
  if (moved.length) await tx.query('SELECT pg_notify($1, $2)', [notifyChannel, notifyPayload(moved.map((site) => site.siteId))])
  for (const command of step.commands) {
    await tx.query('UPDATE hq_rollout_sites SET wanted_action = $3 WHERE rollout_id = $1 AND site_id = $2', [r.id, command.siteId, command.action])
  }
  if (r.state === 'done' && wasState !== 'done') {
    await tx.query(`UPDATE hq_rollout_sites SET wanted_action = 'clear' WHERE rollout_id = $1 AND published_action IS NOT NULL`, [r.id])
  }
}

async function dbNow(tx: SqlClient): Promise<number> {
  const { rows } = await tx.query<{ now: Date }>('SELECT now() AS now')
  return rows[0]!.now.getTime()
}

/**
 * One round over the rollouts that are not over, each locked by this instance only (another
 * instance's round skips it). Resolves with whether a rollout halted in this round (an alert
 * to evaluate now).
 */
export async function driveRollouts(db: Database): Promise<{ halted: number[] }> {
  return db.transaction(async (tx) => {
    const halted: number[] = []
    const { rows } = await tx.query<RolloutRow & { version: string }>(
      `SELECT r.*, rel.version FROM hq_rollouts r JOIN hq_releases rel ON rel.id = r.release_id
       WHERE r.state IN ('running', 'paused', 'halted') ORDER BY r.id FOR UPDATE OF r SKIP LOCKED`,
    )
    const now = await dbNow(tx)
    for (const row of rows) {
      const rollout = toMachine(row, row.version)
      const sites = await loadSites(tx, rollout.id)
      const step = advance(rollout, sites, now)
      await saveStep(tx, sites, step, now, rollout.state)
      if (rollout.state !== 'halted' && step.rollout.state === 'halted') halted.push(rollout.id)
    }
    return { halted }
  })
}

/** An operator's pause, resume or cancel (RolloutTransitionError when it does not apply). */
export async function operateRollout(db: Database, id: number, action: Operator): Promise<boolean> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<RolloutRow & { version: string }>(
      'SELECT r.*, rel.version FROM hq_rollouts r JOIN hq_releases rel ON rel.id = r.release_id WHERE r.id = $1 FOR UPDATE OF r',
      [id],
    )
    if (!rows[0]) return false
    const rollout = toMachine(rows[0], rows[0].version)
    const sites = await loadSites(tx, id)
    const now = await dbNow(tx)
    await saveStep(tx, sites, operate(rollout, sites, action), now, rollout.state)
    return true
  })
}

/** The commands wanted and not yet published (or published for an earlier attempt), with their payloads. */
export async function pendingPublications(db: SqlClient, publicUrl: string): Promise<Publication[]> {
  const { rows } = await db.query<{
    rollout_id: string
    site_id: string
    wanted_action: 'upgrade' | 'stand-down' | 'clear'
    attempt: number
    release_id: string
    version: string
    sha256: string
    size: string
    download_secret: string
    signature: string
  }>(
    `SELECT rs.rollout_id, rs.site_id, rs.wanted_action, rs.attempt, rel.id AS release_id, rel.version, rel.sha256, rel.size, rel.download_secret, rel.signature
     FROM hq_rollout_sites rs JOIN hq_rollouts r ON r.id = rs.rollout_id JOIN hq_releases rel ON rel.id = r.release_id
     WHERE rs.wanted_action IS NOT NULL
       AND (rs.published_action IS DISTINCT FROM rs.wanted_action OR (rs.wanted_action = 'upgrade' AND rs.published_attempt IS DISTINCT FROM rs.attempt))
     ORDER BY rs.rollout_id, rs.site_id`,
  )
  const base = publicUrl.replace(/\/$/, '')
  return rows.map((row) => {
    const rolloutId = Number(row.rollout_id)
    const payload: RolloutCommand | null =
      row.wanted_action === 'clear'
        ? null
        : row.wanted_action === 'upgrade'
          ? {
              rolloutId,
              attempt: row.attempt,
              action: 'upgrade',
              version: row.version,
              sha256: row.sha256,
              size: Number(row.size),
              url: `${base}/api/hq/releases/${row.release_id}/archive`,
              secret: row.download_secret,
              signature: JSON.parse(row.signature) as unknown,
            }
          : { rolloutId, action: 'stand-down' }
    return { rolloutId, siteId: row.site_id, action: row.wanted_action, attempt: row.attempt, payload }
  })
}

export async function markPublished(db: SqlClient, publication: Publication): Promise<void> {
  await db.query(
    'UPDATE hq_rollout_sites SET published_action = $3, published_attempt = $4 WHERE rollout_id = $1 AND site_id = $2 AND wanted_action = $3 AND attempt = $4',
    [publication.rolloutId, publication.siteId, publication.action, publication.attempt],
  )
}

export async function getRollout(db: SqlClient, id: number): Promise<RolloutView | undefined> {
  const { rows } = await db.query<RolloutRow>('SELECT * FROM hq_rollouts WHERE id = $1', [id])
  const row = rows[0]
  if (!row) return undefined
  const release = (await getRelease(db, Number(row.release_id)))!
  const sites = await loadSites(db, id)
  return {
    id: Number(row.id),
    release: { id: release.id, version: release.version, sha256: release.sha256, size: release.size },
    state: row.state,
    reason: row.reason,
    waves: JSON.parse(row.waves) as string[][],
    currentWave: row.current_wave,
    waveStartedAt: row.wave_started_at?.toISOString() ?? null,
    waveDoneAt: row.wave_done_at?.toISOString() ?? null,
    soakSeconds: row.soak_seconds,
    offline: row.offline,
    startedBy: row.started_by,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    sites: sites.map((site) => ({
      siteId: site.siteId,
      wave: site.wave,
      state: site.state,
      reason: site.reason,
      attempt: site.attempt,
      version: site.version,
      online: site.online,
    })),
  }
}

export async function listRollouts(db: SqlClient, limit = 50): Promise<RolloutView[]> {
  const { rows } = await db.query<{ id: string }>('SELECT id FROM hq_rollouts ORDER BY id DESC LIMIT $1', [limit])
  const views: RolloutView[] = []
  for (const row of rows) views.push((await getRollout(db, Number(row.id)))!)
  return views
}
