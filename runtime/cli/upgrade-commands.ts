// `gateway upgrade FILE|URL [--allow-downgrade]`, `gateway upgrade --rollback` and
// `gateway upgrade --recover` (the unit's start-up check), as root on an installed box
// (runtime/upgrade/upgrade.ts; docs/operations.md, "Upgrade").
import type { ParseArgsOptionsConfig } from 'node:util'
import { ConfigError, loadConfig } from '../../lib/config.ts'
import type { CliCommand } from './cli-command.ts'

export const upgradeCliOptions: ParseArgsOptionsConfig = {
  rollback: { type: 'boolean' },
  recover: { type: 'boolean' },
  queued: { type: 'boolean' },
  'allow-downgrade': { type: 'boolean' },
  'health-timeout': { type: 'string' },
  'health-stable': { type: 'string' },
}

export const upgradeUsage = `  upgrade FILE|URL [--allow-downgrade]                as root: verify a signed release, back up, install beside, switch, health check (rolls back by itself)
        [--health-timeout S] [--health-stable S]      ... the check's limit (default 120 s) and how long it must stay healthy (default 10 s)
  upgrade --rollback                                  as root: back to the version kept by the last upgrade
  upgrade --recover                                   the start-up check (the unit runs it): finish or undo a half-done upgrade
  upgrade --queued                                    as root: the upgrade a rollout from HQ queued in the data dir (tracker-gateway-rollout.path runs it)`

function seconds(flag: string, value: string | boolean | undefined, fallback: number): number {
  if (value === undefined) return fallback * 1000
  const parsed = Number(value)
  if (typeof value !== 'string' || !Number.isFinite(parsed) || parsed < 0) throw new ConfigError(`--${flag}: "${value}" is not a number of seconds`)
  return parsed * 1000
}

export const upgradeCliCommand: CliCommand = async (positionals, flags) => {
  const [source, ...extra] = positionals
  const modes = [flags.rollback === true, flags.recover === true, flags.queued === true, source !== undefined].filter(Boolean).length
  if (modes !== 1 || extra.length) throw new ConfigError(`usage:\n${upgradeUsage}`)
  // The data dir the service uses (the installed config), never another gateway found running.
  const dataDir = loadConfig({ configPath: flags.config as string | undefined, dataDir: flags['data-dir'] as string | undefined }).dataDir
  const { installLayout } = await import('../upgrade/layout.ts')
  const { systemctl } = await import('../upgrade/service-manager.ts')
  const { upgrade, rollbackByHand, recover } = await import('../upgrade/upgrade.ts')
  const ctx = {
    layout: installLayout(),
    dataDir,
    service: systemctl(),
    say: (line: string) => console.error(`gateway upgrade: ${line}`),
    healthLimitMs: seconds('health-timeout', flags['health-timeout'], 120),
    stableMs: seconds('health-stable', flags['health-stable'], 10),
  }
  if (flags.recover === true) return (await recover(ctx)) || 'start-up check: no half-done upgrade'
  if (flags.rollback === true) return rollbackByHand(ctx)
  if (flags.queued === true) return (await import('../upgrade/queued.ts')).runQueued(ctx)
  return upgrade(ctx, { source: source!, allowDowngrade: flags['allow-downgrade'] === true })
}
