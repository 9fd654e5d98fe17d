// `gateway hq`: headquarters for a chain (docs/hq.md). Runs on the HQ machine with its own
// config (hq.config.json), never on a site's gateway.
//   gateway hq [start] [--config FILE] [--port N]   run an HQ instance
//   gateway hq token create <name>                   a new HQ API token (shown once)
//   gateway hq token list | revoke <name|id>
//   gateway hq retire <instanceId>                   an instance taken out of service: no longer alerted on
//   gateway hq release ... | rollout ...             releases and rollouts (hq-rollout-commands.ts)
import type { HqConfig } from '../../lib/hq/config.ts'
import { hqRolloutCommand, hqRolloutOptions, hqRolloutUsage } from './hq-rollout-commands.ts'

export { hqRolloutOptions as hqCliOptions }

export const hqUsage = `  hq [start] [--config FILE] [--port N]               run headquarters (hq.config.json): every site on one board
  hq token create <name> [--scope read|admin] | list | revoke <name|id>    headquarters' API tokens (in its PostgreSQL); admin: releases and rollouts too
  hq retire <instanceId>                              an HQ instance taken out of service: its silence is no longer alerted
${hqRolloutUsage}`

/** Runs the subcommand; returns -1 while an instance keeps running, else the exit code. */
export async function hqCliCommand(args: string[], flags: Record<string, string | boolean | undefined>): Promise<number> {
  // HQ's config schema is HQ's alone: imported when `gateway hq` runs, not by every gateway command.
  const { loadHqConfig } = await import('../../lib/hq/config.ts')
  const config: HqConfig = loadHqConfig(flags.config as string | undefined)
  if (flags.port !== undefined) config.port = Number(flags.port)
  const [sub = 'start', ...rest] = args
  if (sub === 'start') {
    await ensureHqManifest()
    const { startHq } = await import('../hq/main.ts')
    process.title = 'tracker-hq'
    const hq = await startHq({ config })
    // A long-running HTTP service as the gateway is: V8's memory reducer must not cost it
    // nextTick's fast path either (runtime/wiring/tick-shape.ts).
    const { keepTickShape } = await import('../wiring/tick-shape.ts')
    keepTickShape()
    let stopping = false
    const stop = async () => {
      if (stopping) return
      stopping = true
      await hq.stop()
      process.exit(0)
    }
    process.on('SIGTERM', () => void stop())
    process.on('SIGINT', () => void stop())
    return -1
  }
  if (sub === 'token') return tokenCommand(config, rest, flags.scope)
  if (sub === 'release' || sub === 'rollout') return hqRolloutCommand(config, sub, rest, flags)
  if (sub === 'retire') return retireCommand(config, rest)
  console.error(`gateway hq: unknown subcommand "${sub}"\n${hqUsage}`)
  return 1
}

async function ensureHqManifest(): Promise<void> {
  const { ensureFreshManifest, functionsDir, hqTarget } = await import('../manifest/manifest-gen.ts')
  const regenerated = await ensureFreshManifest(functionsDir, hqTarget)
  if (regenerated) console.error(`functions/${hqTarget.fileName} was stale (${regenerated}): regenerated`)
}

async function tokenCommand(config: HqConfig, args: string[], scope: string | boolean | undefined): Promise<number> {
  const { openDatabase } = await import('../../lib/store/postgres.ts')
  const { ensureSchema } = await import('../../lib/hq/schema.ts')
  const { HqTokens } = await import('../../lib/hq/tokens.ts')
  const db = openDatabase(config.postgresUrl, { max: 1, applicationName: 'hq-cli' })
  try {
    await ensureSchema(db)
    const tokens = new HqTokens(db)
    const [action, name] = args
    if (action === 'create' && name) {
      if (scope !== undefined && scope !== 'read' && scope !== 'admin') {
        console.error('gateway hq token create: --scope read or admin')
        return 1
      }
      const { token } = await tokens.create(name, scope ?? 'read')
      console.log(token)
      return 0
    }
    if (action === 'list') {
      const list = await tokens.list()
      console.log(
        list.length ? list.map((t) => `${t.id}  ${t.name}  ${t.scope}  created ${t.created}  last used ${t.lastUsed ?? 'never'}`).join('\n') : 'no HQ tokens',
      )
      return 0
    }
    if (action === 'revoke' && name) {
      const count = await tokens.revoke(name)
      console.log(count ? `revoked ${count} token(s)` : `no token named or numbered "${name}"`)
      return count ? 0 : 1
    }
    console.error(`usage:\n${hqUsage}`)
    return 1
  } finally {
    await db.close()
  }
}

async function retireCommand(config: HqConfig, args: string[]): Promise<number> {
  const [instanceId] = args
  if (!instanceId) {
    console.error(`usage:\n${hqUsage}`)
    return 1
  }
  const { openDatabase } = await import('../../lib/store/postgres.ts')
  const { ensureSchema } = await import('../../lib/hq/schema.ts')
  const { retireInstance } = await import('../../lib/hq/instances.ts')
  const db = openDatabase(config.postgresUrl, { max: 1, applicationName: 'hq-cli' })
  try {
    await ensureSchema(db)
    if (await retireInstance(db, instanceId)) {
      console.log(`instance ${instanceId} retired: remove its broker account (hq-${instanceId}) and ACL block too`)
      return 0
    }
    console.log(`no instance "${instanceId}" has run against this database`)
    return 1
  } finally {
    await db.close()
  }
}
