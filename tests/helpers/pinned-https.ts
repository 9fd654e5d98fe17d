// A client that pins the box's public key, as a kiosk (Chromium's
// --ignore-certificate-errors-spki-list) or a POS does: it trusts no CA and no name, only a
// server whose certificate carries the pinned key (SHA-256 of the SubjectPublicKeyInfo,
// base64, what `gateway tls status` prints). A server with another key is refused before
// any request is sent.
import { createHash, X509Certificate } from 'node:crypto'
import http from 'node:http'
import tls from 'node:tls'

/** The pin of a certificate (PEM or DER): SHA-256 of its public key, base64. */
export function spkiPin(certificate: string | Buffer): string {
  const parsed = new X509Certificate(certificate)
  return createHash('sha256').update(parsed.publicKey.export({ type: 'spki', format: 'der' })).digest('base64')
}

export class PinMismatch extends Error {
  constructor(served: string, pinned: string) {
    super(`the server's public key pin is ${served}, the client pinned ${pinned}`)
    this.name = 'PinMismatch'
  }
}

export interface PinnedAnswer {
  status: number
  body: any
  /** The pin of the certificate the server presented. */
  servedPin: string
}

/** A TLS connection to 127.0.0.1:port that only completes when the server's key has the pin. */
function pinnedSocket(port: number, pin: string): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    // The CA chain and names are not checked: the pin is the trust (checked just below).
    const socket = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false })
    socket.once('error', reject)
    socket.once('secureConnect', () => {
      const served = spkiPin(socket.getPeerCertificate().raw)
      if (served !== pin) {
        socket.destroy()
        return reject(new PinMismatch(served, pin))
      }
      socket.off('error', reject)
      resolve(socket)
    })
  })
}

/** A JSON request over HTTPS to a server holding the pinned key; rejects with PinMismatch otherwise. */
export async function pinnedJson(port: number, pin: string, method: string, target: string, token?: string): Promise<PinnedAnswer> {
  const socket = await pinnedSocket(port, pin)
  const servedPin = spkiPin(socket.getPeerCertificate().raw)
  return new Promise((resolve, reject) => {
    const request = http.request({ createConnection: () => socket, host: '127.0.0.1', port, method, path: target, headers: token ? { authorization: `Bearer ${token}` } : {} }, (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (text += chunk))
      response.on('end', () => {
        socket.destroy()
        resolve({ status: response.statusCode!, body: JSON.parse(text), servedPin })
      })
    })
    request.on('error', reject)
    request.end()
  })
}
