// HQ's own HTTPS (hq.config.json `tls`): the certificate and key it serves, read and checked
// as the gateway checks its own (runtime/host/tls/certificate-check.ts: readable PEM, the key
// the certificate's, valid now), and read again every few minutes so a renewed pair (certbot,
// the chain's PKI) is served without a restart. A pair that does not check stops the start;
// a renewal that does not check is logged and the pair in service stays.
import { readFileSync } from 'node:fs'
import { HqConfigError, type HqConfig } from '../../lib/hq/config.ts'
import type { Logger } from '../../lib/kernel/log.ts'
import { checkCertificatePair } from '../host/tls/certificate-check.ts'

export type HqTlsFiles = NonNullable<HqConfig['tls']>

export interface CertificatePem {
  cert: string
  key: string
}

function readPem(label: 'cert' | 'key', file: string): string {
  try {
    return readFileSync(file, 'utf8')
  } catch (error) {
    throw new HqConfigError(`tls.${label} ${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`)
  }
}

/** The pair the files hold now, checked; HqConfigError naming the files and the problem otherwise. */
export function readHqCertificate(files: HqTlsFiles, now = new Date()): CertificatePem {
  const pair = { cert: readPem('cert', files.cert), key: readPem('key', files.key) }
  try {
    checkCertificatePair(pair.cert, pair.key, now)
  } catch (error) {
    throw new HqConfigError(`tls.cert ${files.cert}, tls.key ${files.key}: ${(error as Error).message}`)
  }
  return pair
}

/**
 * Reads the files again every `everyMs`; a changed pair that checks is handed to `serve`.
 * Returns the function that stops it.
 */
export function followCertificate(files: HqTlsFiles, current: CertificatePem, serve: (pair: CertificatePem) => void, log: Logger, everyMs = 5 * 60_000) {
  let served = current
  let refused = ''
  const timer = setInterval(() => {
    let pair: CertificatePem
    try {
      pair = readHqCertificate(files)
    } catch (error) {
      // Said once per new problem, not every round.
      if ((error as Error).message !== refused)
        log.error({ reason: (error as Error).message }, 'hq: the TLS certificate files cannot be served: the one in service stays')
      refused = (error as Error).message
      return
    }
    refused = ''
    if (pair.cert === served.cert && pair.key === served.key) return
    serve(pair)
    served = pair
    log.info({ cert: files.cert }, 'hq: serving the renewed TLS certificate')
  }, everyMs)
  timer.unref()
  return () => clearInterval(timer)
}
