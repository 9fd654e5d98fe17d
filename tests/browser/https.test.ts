// The board over HTTPS in real Chromium, trusting the box's own certificate by its public key
// (--ignore-certificate-errors-spki-list: what a person does by comparing the fingerprint):
// the sign-in screen shows the fingerprint served, the token comes from the button window,
// and the live feed runs over wss. Over plain HTTP the sign-in screen warns and links to HTTPS.
import { mkdirSync, writeFileSync } from 'node:fs'
import { X509Certificate } from 'node:crypto'
import path from 'node:path'
import t from 'tap'
import { sendControl } from '../../runtime/control/control.ts'
import { describeCertificate } from '../../runtime/host/tls/certificate-info.ts'
import { makeSelfSigned } from '../../runtime/host/tls/self-signed.ts'
import { apiClient, gatewayOn, launchBrowser, watchErrors } from '../helpers/browser.ts'

// The box's key is made before the browser starts, so the browser can be told to trust it;
// the gateway reissues the certificate for its own names with this same key.
const dataDir = t.testdir()
mkdirSync(path.join(dataDir, 'tls'), { recursive: true, mode: 0o700 })
const made = makeSelfSigned({ names: ['placeholder'], addresses: [], now: new Date() })
writeFileSync(path.join(dataDir, 'tls', 'self-signed.key'), made.keyPem, { mode: 0o600 })
writeFileSync(path.join(dataDir, 'tls', 'self-signed.crt'), made.certPem)
const pin = describeCertificate(made.certPem).spkiSha256
const browser = await launchBrowser(t, [`--ignore-certificate-errors-spki-list=${pin}`])
const gateway = await gatewayOn(dataDir)
t.teardown(() => gateway.stop())

t.test('the board over https: fingerprint on the sign-in screen, token from the button, feed over wss', async (t) => {
  const status = gateway.services.tlsStatus.get()!
  t.equal(status.spkiSha256, pin, 'the same key, reissued for the box names')
  t.ok(status.subjectAltNames.includes('IP Address:127.0.0.1'))
  const base = `https://127.0.0.1:${gateway.securePort}`
  const context = await browser.newContext()
  t.teardown(() => context.close())
  const page = await context.newPage()
  const errors = watchErrors(page)
  const response = await page.goto(`${base}/`)
  t.equal(response?.status(), 200)
  t.match(await response!.securityDetails(), { protocol: /^TLS 1\.[23]$/ }, 'Chromium loaded it over TLS, trusting the pinned key')
  const served = new X509Certificate(await certificateOf(base))
  await page.locator('#tls-fingerprint').waitFor()
  t.equal(await page.locator('#tls-fingerprint').textContent(), status.fingerprintSha256)
  t.equal(served.fingerprint256, status.fingerprintSha256, 'the fingerprint shown is the certificate the browser got')
  t.equal(await page.locator('#connection-security').getAttribute('data-secure'), 'true')
  t.equal(await page.locator('#https-link').count(), 0, 'no warning over HTTPS')

  await sendControl(dataDir, 'button.press')
  await page.locator('#token-from-button').click()
  await page.locator('body[data-connection="live"]').waitFor()
  const token = await page.evaluate(() => localStorage.getItem('trackerGateway.accessToken'))
  t.match(token, /^[0-9a-f]{48}$/)
  // An order created over plain HTTP reaches the HTTPS board through its wss feed.
  const api = apiClient(`http://127.0.0.1:${gateway.port}`, token!)
  t.equal((await api('POST', '/api/v2/activeorders', { name: 31, orderType: 'TO_GO' })).status, 200)
  await page.locator('.card[data-order="31"]').waitFor()
  t.same(errors, [], 'no console errors')
})

t.test('over plain HTTP the sign-in screen warns and links to the HTTPS address', async (t) => {
  const context = await browser.newContext()
  t.teardown(() => context.close())
  const page = await context.newPage()
  await page.goto(`http://127.0.0.1:${gateway.port}/`)
  const link = page.locator('#https-link')
  await link.waitFor()
  t.equal(await link.getAttribute('href'), `https://127.0.0.1:${gateway.securePort}/`)
  t.match(await page.locator('#connection-security').textContent(), /not encrypted/)
  t.equal(await page.locator('#tls-fingerprint').textContent(), gateway.services.tlsStatus.get()!.fingerprintSha256)
  await link.click()
  await page.waitForURL(`https://127.0.0.1:${gateway.securePort}/`)
  await page.locator('#connection-security[data-secure="true"]').waitFor()
})

/** The certificate the server presents (PEM), read with node's TLS client. */
async function certificateOf(base: string): Promise<string> {
  const { connect } = await import('node:tls')
  const url = new URL(base)
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port), rejectUnauthorized: false }, () => {
      const raw = socket.getPeerCertificate().raw
      socket.end()
      resolve(`-----BEGIN CERTIFICATE-----\n${raw.toString('base64')}\n-----END CERTIFICATE-----\n`)
    })
    socket.on('error', reject)
  })
}
