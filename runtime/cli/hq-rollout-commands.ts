// `gateway hq release ...` and `gateway hq rollout ...` (issue 46; docs/hq.md "Rollouts"): on
// the HQ machine, against HQ's PostgreSQL as the other `gateway hq` commands are. What they
// change, the running instances act on at their next round (rollout.checkIntervalMs).
//   gateway hq release upload FILE        FILE and FILE.sig (npm run release), verified with releases.keys
//   gateway hq release list
//   gateway hq rollout start RELEASE [--canary SITE,...|--canary-count N] [--percent 10,50] [--soak MIN] [--offline catch-up|skip] [--sites SITE,...]
//   gateway hq rollout list | show ID | pause ID | resume ID | cancel ID
import { createReadStream, readFileSync } from 'node:fs'
import type { ParseArgsOptionsConfig } from 'node:util'
import type { HqConfig } from '../../lib/hq/config.ts'
import type { RolloutView } from '../../lib/hq/rollouts.ts'

export const hqRolloutOptions: ParseArgsOptionsConfig = {
  canary: { type: 'string' },
  'canary-count': { type: 'string' },
  percent: { type: 'string' },
  soak: { type: 'string' },
  offline: { type: 'string' },
  sites: { type: 'string' },
  scope: { type: 'string' },
}

export const hqRolloutUsage = `  hq release upload FILE | list                       a signed release (FILE and FILE.sig) into HQ, verified with releases.keys
  hq rollout start RELEASE [--canary SITE,..|--canary-count N] [--percent 10,50] [--soak MIN] [--offline catch-up|skip] [--sites SITE,..]
  hq rollout list | show ID | pause ID | resume ID | cancel ID    a rollout of a release to the sites, in waves`

type Flags = Record<string, string | boolean | undefined>

const list = (value: string | boolean | undefined) =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean)
    : undefined

function number(flag: string, value: string | boolean | undefined): number | undefined {
  if (value === undefined) return undefined
  const parsed = Number(value)
  if (typeof value !== 'string' || !Number.isFinite(parsed) || parsed < 0) throw new Error(`--${flag}: "${value}" is not a number`)
  return parsed
}

/** One line per site under the rollout's own. */
export function describeRollout(rollout: RolloutView): string {
  const head = `rollout ${rollout.id}: ${rollout.release.version} ${rollout.state}${rollout.reason ? ` (${rollout.reason})` : ''}, wave ${rollout.currentWave + 1} of ${rollout.waves.length}, soak ${rollout.soakSeconds / 60} min, offline sites ${rollout.offline}`
  const sites = rollout.sites.map(
    (site) =>
      `  wave ${site.wave + 1}  ${site.siteId}  ${site.state}${site.reason ? ` (${site.reason})` : ''}  runs ${site.version ?? '?'}${site.online ? '' : ', offline'}`,
  )
  return [head, ...sites].join('\n')
}

export async function hqRolloutCommand(config: HqConfig, sub: 'release' | 'rollout', args: string[], flags: Flags): Promise<number> {
  const { openDatabase } = await import('../../lib/store/postgres.ts')
  const { ensureSchema } = await import('../../lib/hq/schema.ts')
  const releases = await import('../../lib/hq/releases.ts')
  const rollouts = await import('../../lib/hq/rollouts.ts')
  const { operateRollout } = rollouts
  const db = openDatabase(config.postgresUrl, { max: 2, applicationName: 'hq-cli' })
  const [action, target] = args
  try {
    await ensureSchema(db)
    if (sub === 'release' && action === 'upload' && target) {
      const { parseTrustedKey } = await import('../../lib/release/signature.ts')
      const trusted = config.releases.keys.map((file) => parseTrustedKey(file, readFileSync(file, 'utf8')))
      // Through the same staging as an upload: the archive is never read whole into memory.
      const upload = await releases.beginRelease(db, readFileSync(`${target}.sig`, 'utf8'), trusted)
      let stored: Awaited<ReturnType<typeof upload.store>>
      try {
        for await (const chunk of createReadStream(target)) await upload.write(chunk as Buffer)
        stored = await upload.store()
      } finally {
        await upload.discard()
      }
      const { release, created } = stored
      console.log(
        `${created ? 'stored' : 'already stored'}: release ${release.id}, version ${release.version}, sha256 ${release.sha256}, signed by key ${release.keyId}`,
      )
      return 0
    }
    if (sub === 'release' && action === 'list') {
      const all = await releases.listReleases(db)
      console.log(
        all.length ? all.map((r) => `${r.id}  ${r.version}  ${r.size} bytes  key ${r.keyId}  uploaded ${r.uploadedAt}`).join('\n') : 'no release uploaded',
      )
      return 0
    }
    if (sub === 'rollout' && action === 'start' && target) {
      const offline = flags.offline ?? 'catch-up'
      if (offline !== 'catch-up' && offline !== 'skip') throw new Error('--offline: catch-up or skip')
      const id = await rollouts.startRollout(db, {
        releaseId: Number(target),
        sites: list(flags.sites),
        canary: list(flags.canary),
        canaryCount: number('canary-count', flags['canary-count']),
        percentages: list(flags.percent)?.map((value) => number('percent', value)!),
        soakSeconds: Math.round((number('soak', flags.soak) ?? 30) * 60),
        offline,
        startedBy: `cli (${process.env.USER ?? 'unknown'})`,
      })
      console.log(describeRollout((await rollouts.getRollout(db, id))!))
      return 0
    }
    if (sub === 'rollout' && action === 'list') {
      const all = await rollouts.listRollouts(db)
      console.log(
        all.length
          ? all.map((r) => `${r.id}  ${r.release.version}  ${r.state}  wave ${r.currentWave + 1}/${r.waves.length}  started ${r.createdAt}`).join('\n')
          : 'no rollout',
      )
      return 0
    }
    if (sub === 'rollout' && target && ['show', 'pause', 'resume', 'cancel'].includes(action ?? '')) {
      const id = Number(target)
      if (action !== 'show' && !(await operateRollout(db, id, action as 'pause' | 'resume' | 'cancel'))) throw new Error(`no rollout ${target}`)
      const rollout = await rollouts.getRollout(db, id)
      if (!rollout) throw new Error(`no rollout ${target}`)
      console.log(describeRollout(rollout))
      return 0
    }
    console.error(`usage:\n${hqRolloutUsage}`)
    return 1
  } catch (error) {
    console.error(`gateway hq ${sub}: ${(error as Error).message}`)
    return 1
  } finally {
    await db.close()
  }
}
