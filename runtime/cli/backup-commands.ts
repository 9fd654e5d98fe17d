// `gateway backup [--to FILE|DIR]` (the running gateway writes it, through the control
// socket), `gateway backup verify FILE` and `gateway restore FILE [--replace]` (both work on
// files, without a gateway; a restore wants it stopped).
import path from 'node:path'
import type { ParseArgsOptionsConfig } from 'node:util'
import { loadConfig } from '../../lib/config.ts'
import { manifestWarnings, type BackupManifest } from '../../lib/backup/manifest.ts'
import type { BackupStatusView } from '../../lib/backup/record.ts'
import { readPassphraseFile, type BackupDone, type BackupService } from '../backup/backup-service.ts'
import { sendControl, type ControlServer } from '../control/control.ts'
import type { CliCommand } from './cli-command.ts'

export const backupCliOptions: ParseArgsOptionsConfig = {
  to: { type: 'string' },
  'passphrase-file': { type: 'string' },
  replace: { type: 'boolean' },
}

/** A backup of a million-order history takes minutes on a Raspberry Pi: the CLI waits. */
const backupWaitMs = 6 * 3600_000

export function registerBackupCommands(control: ControlServer, backups: BackupService): void {
  control.register('backup.run', async (args) => {
    const to = typeof args.to === 'string' ? args.to : undefined
    const passphrase = typeof args.passphrase === 'string' ? args.passphrase : undefined
    const done = await backups.run({ trigger: 'manual', to, passphrase })
    return { file: done.file, bytes: done.bytes, manifest: done.manifest }
  })
  control.register('backup.status', () => backups.status())
}

/** `gateway status`'s backup lines. */
export function describeBackupStatus(view: BackupStatusView): string[] {
  const last = view.last
  const lines = [
    view.scheduled ? `backups: daily at ${view.at} into ${view.directory}, ${view.keep} kept${view.nextAt ? `, next ${view.nextAt}` : ''}` : 'backups: none scheduled (gateway.config.json "backup.directory")',
  ]
  if (view.running) lines.push('backup running now')
  if (!last) lines.push('last backup: never')
  else if (last.ok) lines.push(`last backup: ${last.at}, ${last.file} (${last.bytes} bytes)`)
  else lines.push(`last backup FAILED: ${last.at}: ${last.reason}${view.lastGood ? `; last good one ${view.lastGood.at}, ${view.lastGood.file}` : ''}`)
  if (view.warning === 'stale') lines.push('warning: the last good backup is more than two days old')
  return lines
}

async function passphraseOf(flags: Record<string, string | boolean | undefined>): Promise<string | undefined> {
  const file = flags['passphrase-file']
  return typeof file === 'string' ? readPassphraseFile(file) : undefined
}

export const backupCliCommand: CliCommand = async (positionals, flags, dataDir) => {
  const [sub, file, ...extra] = positionals
  if (sub === 'verify' && file !== undefined && extra.length === 0) {
    // verify and restore are the CLI's alone: imported when run, not by every gateway start.
    const { verifyBackup } = await import('../../lib/backup/verify.ts')
    const manifest = await verifyBackup(path.resolve(file), { passphrase: await passphraseOf(flags) })
    return `backup ${file} is whole: ${describeManifest(manifest)}`
  }
  if (sub !== undefined) throw new Error('usage: gateway backup [--to FILE|DIR] [--passphrase-file F] | gateway backup verify FILE [--passphrase-file F]')
  const to = typeof flags.to === 'string' ? path.resolve(flags.to) : undefined
  const done = (await sendControl(dataDir, 'backup.run', { to, passphrase: await passphraseOf(flags) }, backupWaitMs)) as Omit<BackupDone, 'removed'>
  return `backup written: ${done.file} (${done.bytes} bytes)\n${describeManifest(done.manifest)}`
}

export const restoreCliCommand: CliCommand = async (positionals, flags) => {
  const [file, ...extra] = positionals
  if (file === undefined || extra.length) throw new Error('usage: gateway restore FILE [--data-dir DIR] [--replace] [--passphrase-file F] (with the gateway stopped)')
  // The data dir resolved as `gateway start` resolves it, never another running gateway's.
  const dataDir = loadConfig({ configPath: flags.config as string | undefined, dataDir: flags['data-dir'] as string | undefined }).dataDir
  const { restoreBackup } = await import('../backup/restore.ts')
  const result = await restoreBackup({ file: path.resolve(file), dataDir, passphrase: await passphraseOf(flags), replace: flags.replace === true })
  const orders = result.activeOrders.length
    ? [`${result.activeOrders.length} order(s) were active at the backup and are active again (clear on the board any that are gone):`, ...result.activeOrders.map((o) => `  order ${o.name}${o.locationName !== null ? ` at table ${o.locationName}` : ''}, started ${new Date(o.created).toISOString()}`)]
    : ['no order was active at the backup']
  return [
    `restored ${file} into ${result.dataDir}`,
    describeManifest(result.manifest),
    ...(result.movedAside ? [`the data dir that was there is kept at ${result.movedAside}`] : []),
    `change numbers (seq) continue above ${result.seqFloor}: webhook and fleet receivers never see one go back`,
    ...orders,
    'start the gateway now (sudo systemctl start tracker-gateway)',
  ].join('\n')
}

/** What a backup holds, as `backup verify`, `backup` and `restore` say it. */
export function describeManifest(manifest: BackupManifest): string {
  const collections = Object.values(manifest.counts.collections).reduce((a, b) => a + b, 0)
  const tls = manifest.tls ?? []
  const source = { 'self-signed': "the box's own certificate", installed: 'the installed certificate' } as const
  return [
    `taken ${new Date(manifest.takenAt).toISOString()} by gateway ${manifest.deviceId} (version ${manifest.appVersion}) at seq ${manifest.seq}`,
    `${manifest.counts.activeOrders} active orders, ${manifest.counts.historyRows} history rows, ${collections} documents in ${Object.keys(manifest.counts.collections).length} collections, ${manifest.counts.radioFiles} radio files${manifest.counts.radioFiles ? (manifest.coordinatorBackupFresh ? ' (fresh coordinator backup)' : ' (as they were: the radio was not up)') : ''}`,
    ...tls.map((c) => `TLS: ${source[c.source]} with its private key, public key pin (SPKI SHA-256) ${c.spkiSha256}, fingerprint ${c.fingerprintSha256}, valid until ${c.validTo}`),
    ...(manifest.formatVersion >= 2 && tls.length === 0 ? ['TLS: no certificate (HTTPS never ran on this box): a restored box makes a new one'] : []),
    ...(manifest.webhookSigningKeyId ? [`webhook signing key (JWKS kid) ${manifest.webhookSigningKeyId}, with its private key`] : []),
    ...manifestWarnings(manifest).map((warning) => `warning: ${warning}`),
  ].join('\n')
}
