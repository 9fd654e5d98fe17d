// `gateway tls install --cert FILE --key FILE` (a certificate from the restaurant's IT),
// `gateway tls remove` (back to the box's own) and `gateway tls status`. The running gateway
// checks, stores and serves an installed pair at once (no restart); with none running the
// command checks and stores it for the next start.
import { chownSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import type { TlsStatus, TlsStatusHolder } from '../../lib/gateway/tls-status.ts'
import { checkCertificatePair } from '../host/tls/certificate-check.ts'
import { installPair, removeInstalledPair, tlsDir } from '../host/tls/certificate-files.ts'
import type { TlsService } from '../host/tls/tls-service.ts'
import { GatewayUnreachableError, sendControl, type ControlServer } from '../control/control.ts'
import type { CliCommand } from './cli-command.ts'

export const tlsCliOptions = { cert: { type: 'string' }, key: { type: 'string' } } as const

const off = 'HTTPS is off (tls.enabled is false in the config)'

export function registerTlsCommands(control: ControlServer, service: TlsService | undefined, status: TlsStatusHolder, dataDir: string): void {
  control.register('tls.status', () => status.get())
  control.register('tls.install', (args) => {
    const pair = { cert: String(args.cert ?? ''), key: String(args.key ?? '') }
    if (service) return service.install(pair)
    checkCertificatePair(pair.cert, pair.key, new Date())
    installPair(dataDir, pair)
    return null
  })
  control.register('tls.remove', async () => {
    const removed = removeInstalledPair(dataDir)
    return { removed, status: service ? await service.reload() : null }
  })
}

/** How `gateway status` and `gateway tls status` print the TLS side. */
export function formatTlsStatus(status: TlsStatus | null): string {
  if (!status) return off
  const source = { 'self-signed': "the box's own certificate", installed: 'the installed certificate', config: 'the certificate of tls.certFile' }[
    status.source
  ]
  return [
    `https: port ${status.port}, ${source}, valid until ${status.validTo}`,
    `  SHA-256 fingerprint: ${status.fingerprintSha256}`,
    `  public key pin (SPKI SHA-256): ${status.spkiSha256}`,
    `  names: ${status.subjectAltNames.join(', ')}`,
  ].join('\n')
}

/** For `gateway status`: the HTTPS lines (nothing from a gateway too old to answer tls.status). */
export async function tlsStatusLines(dataDir: string): Promise<string[]> {
  try {
    return formatTlsStatus((await sendControl(dataDir, 'tls.status', {}, 5_000)) as TlsStatus | null).split('\n')
  } catch {
    return []
  }
}

function readFlagFile(flags: Record<string, string | boolean | undefined>, name: 'cert' | 'key'): string {
  const file = flags[name]
  if (typeof file !== 'string' || file === '') throw new Error('usage: gateway tls install --cert FILE --key FILE')
  try {
    return readFileSync(file, 'utf8')
  } catch (error) {
    throw new Error(`cannot read --${name} ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }
}

/** With no gateway running: check and store, owned like the data dir (root installing for the service's user). */
function installOffline(dataDir: string, pair: { cert: string; key: string }): string {
  checkCertificatePair(pair.cert, pair.key, new Date())
  installPair(dataDir, pair)
  if (process.getuid?.() === 0) {
    const owner = statSync(dataDir)
    for (const file of [tlsDir(dataDir), path.join(tlsDir(dataDir), 'installed.crt'), path.join(tlsDir(dataDir), 'installed.key')])
      chownSync(file, owner.uid, owner.gid)
  }
  return `installed in ${tlsDir(dataDir)}; no gateway runs on ${dataDir}: it serves this certificate when it starts`
}

export const tlsCliCommand: CliCommand = async (positionals, flags, dataDir) => {
  const [sub, ...extra] = positionals
  if (extra.length > 0) throw new Error('usage: gateway tls install --cert FILE --key FILE | gateway tls remove | gateway tls status')
  if (sub === 'status') return formatTlsStatus((await sendControl(dataDir, 'tls.status')) as TlsStatus | null)
  if (sub === 'remove') {
    const { removed, status } = (await sendControl(dataDir, 'tls.remove')) as { removed: boolean; status: TlsStatus | null }
    return `${removed ? 'removed the installed certificate' : 'no certificate was installed'}\n${formatTlsStatus(status)}`
  }
  if (sub === 'install') {
    const pair = { cert: readFlagFile(flags, 'cert'), key: readFlagFile(flags, 'key') }
    try {
      const status = (await sendControl(dataDir, 'tls.install', pair)) as TlsStatus | null
      if (!status) return `installed in ${tlsDir(dataDir)}; ${off}`
      const note =
        status.source === 'config' ? '\nnote: tls.certFile in the config wins over an installed certificate: remove it from the config to serve this one' : ''
      return `installed and served from now on (no restart needed)\n${formatTlsStatus(status)}${note}`
    } catch (error) {
      if (error instanceof GatewayUnreachableError) return installOffline(dataDir, pair)
      throw error
    }
  }
  throw new Error('usage: gateway tls install --cert FILE --key FILE | gateway tls remove | gateway tls status')
}
