// The sign-in screen says whether this connection is encrypted and shows the certificate's
// SHA-256 fingerprint (from the open GET /api/v2/gateway/tls), so a person can compare it with
// what the browser shows (and `gateway status` on the box) before trusting the box's own
// certificate. On plain HTTP it offers the HTTPS address: the token would cross the network in clear.
import { t } from './i18n.js'

function line(text, className) {
  const element = document.createElement('p')
  element.className = className
  element.textContent = text
  return element
}

/** Fills `element` (the sign-in form's security note); quiet when the gateway does not answer. */
export async function showConnectionSecurity(element) {
  let tls = null
  try {
    tls = (await fetch('/api/v2/gateway/tls', { headers: { accept: 'application/json' } }).then((r) => r.json())).tls ?? null
  } catch {
    return
  }
  element.replaceChildren()
  const secure = location.protocol === 'https:'
  element.dataset.secure = String(secure)
  if (secure) {
    element.append(line(t('securityEncrypted'), 'hint'))
  } else if (tls) {
    const address = `https://${location.hostname.includes(':') ? `[${location.hostname}]` : location.hostname}:${tls.port}/`
    const warning = line(t('securityUse'), 'hint warning')
    const link = document.createElement('a')
    link.href = address
    link.id = 'https-link'
    link.textContent = address
    warning.append(link, '.')
    element.append(warning)
  } else {
    element.append(line(t('securityOff'), 'hint warning'))
  }
  if (tls) {
    element.append(line(t('securityCompare'), 'hint'))
    const fingerprint = line(tls.fingerprintSha256, 'fingerprint')
    fingerprint.id = 'tls-fingerprint'
    element.append(fingerprint)
  }
}
