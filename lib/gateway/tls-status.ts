// What the gateway's HTTPS side is serving, as GET /api/v2/gateway and the board's sign-in
// screen show it: a person compares the fingerprint with the one their browser or client
// shows before trusting the box's own certificate. The runtime's TLS part keeps it current.

export interface TlsStatus {
  /** The HTTPS port. */
  port: number
  /** Where the certificate comes from: the box's own, one installed with `gateway tls install`, or tls.certFile. */
  source: 'self-signed' | 'installed' | 'config'
  /** SHA-256 of the certificate (DER), colon-separated hex as browsers show it. */
  fingerprintSha256: string
  /** SHA-256 of the public key (SubjectPublicKeyInfo), base64: the pin that survives a reissue for new addresses. */
  spkiSha256: string
  /** The names and addresses the certificate is valid for, e.g. "DNS:box.local", "IP Address:192.168.1.20". */
  subjectAltNames: string[]
  /** End of validity, ISO 8601. */
  validTo: string
}

/** The current TLS status (null: HTTPS is off or not started yet). */
export class TlsStatusHolder {
  #current: TlsStatus | null = null

  get(): TlsStatus | null {
    return this.#current
  }

  set(status: TlsStatus | null): void {
    this.#current = status
  }
}
