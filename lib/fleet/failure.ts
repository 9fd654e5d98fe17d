// Why a connection to the broker failed, in the words an operator needs: a wrong password or
// a certificate problem is fixed by a person, a broker that is down fixes itself.
import { FleetTlsFileError } from './config.ts'

export type FleetFailure = 'down' | 'auth-failed' | 'tls-failed'

/** MQTT 3.1.1 CONNACK return codes and MQTT 5 reason codes that mean "who you are" is refused. */
const authCodes = new Set([4, 5, 0x86, 0x87])

const connackText: Record<number, string> = {
  1: 'unacceptable protocol version',
  2: 'client identifier rejected',
  3: 'server unavailable',
  4: 'bad user name or password',
  5: 'not authorized',
  0x86: 'bad user name or password',
  0x87: 'not authorized',
}

export interface ClassifiedFailure {
  kind: FleetFailure
  message: string
}

export function classifyFailure(error: unknown): ClassifiedFailure {
  const err = error as { code?: unknown; message?: string } | undefined
  const message = err?.message ?? String(error)
  if (error instanceof FleetTlsFileError) return { kind: 'tls-failed', message }
  const code = err?.code
  if (typeof code === 'number') {
    const text = connackText[code] ?? message
    return { kind: authCodes.has(code) ? 'auth-failed' : 'down', message: `broker refused the connection: ${text}` }
  }
  if (typeof code === 'string' && isTlsCode(code)) return { kind: 'tls-failed', message: `TLS: ${message}` }
  return { kind: 'down', message }
}

function isTlsCode(code: string): boolean {
  return (
    code.startsWith('ERR_SSL_') ||
    code.startsWith('ERR_TLS_') ||
    code.includes('CERT') ||
    code === 'EPROTO' ||
    code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' ||
    code === 'UNABLE_TO_GET_ISSUER_CERT' ||
    code === 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY' ||
    code === 'ERR_OSSL_PEM_NO_START_LINE' ||
    code.startsWith('ERR_OSSL_')
  )
}
