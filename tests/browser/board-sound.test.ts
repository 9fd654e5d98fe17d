// Sound on a screen nobody touches, in real Chromium. Without flags Chromium blocks audio
// until a tap: the board must say so on screen, and one tap must fix it. With the kiosk's
// documented flags (deploy/kiosk/) a tone plays with no tap at all. Late orders keep
// reminding at this screen's interval until they are dealt with. Tones are seen through an
// instrumented OscillatorNode.start, which records the audio context's state at each start.
import t, { type Test } from 'tap'
import type { Browser, Page } from 'playwright-core'
import { apiClient, firstToken, gatewayOn, launchBrowser, ShiftedClock, watchErrors } from '../helpers/browser.ts'
import { kioskArguments } from '../helpers/kiosk-flags.ts'

const plain = await launchBrowser(t)
// The kiosk's own flags, but not its profile directory (Playwright gives each context one).
const kioskFlags = kioskArguments().filter((arg) => arg.startsWith('--') && !arg.startsWith('--user-data-dir='))
const kiosk = await launchBrowser(t, kioskFlags)

const dataDir = t.testdir()
const clock = new ShiftedClock()
const gateway = await gatewayOn(dataDir, 0, {}, clock)
t.teardown(() => gateway.stop())
const base = `http://127.0.0.1:${gateway.port}`
const token = await firstToken(gateway, dataDir)
const api = apiClient(base, token)

/** Every oscillator started: its frequency and the context's state then. */
function recordTones() {
  const tones: Array<{ frequency: number; state: string }> = []
  ;(window as unknown as { tones: typeof tones }).tones = tones
  const start = OscillatorNode.prototype.start
  OscillatorNode.prototype.start = function (...args: Parameters<typeof start>) {
    tones.push({ frequency: this.frequency.value, state: this.context.state })
    return start.apply(this, args)
  }
}

const tones = (page: Page) => page.evaluate(() => (window as unknown as { tones: Array<{ frequency: number; state: string }> }).tones)

/** A screen of `browser` with sound switched on earlier (kept in its storage), signed in. */
async function screen(t: Test, browser: Browser, options: { fakeClock?: boolean } = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  t.teardown(() => context.close())
  await context.addInitScript((value) => {
    localStorage.setItem('trackerGateway.accessToken', value)
    localStorage.setItem('trackerGateway.sound', 'on')
  }, token)
  await context.addInitScript(recordTones)
  const page = await context.newPage()
  if (options.fakeClock) await page.clock.install()
  const errors = watchErrors(page)
  await page.goto(`${base}/`)
  await page.locator('body[data-connection="live"]').waitFor()
  return { page, errors }
}

t.test('a late order on a fresh screen without flags: a blocked-sound banner, one tap fixes it', async (t) => {
  await api('DELETE', '/api/v2/activeorders')
  // Late, not yet very late (twice the 5-minute target).
  clock.offset = -400_000
  await api('POST', '/api/v2/activeorders', { name: 31, orderType: 'ON_PREMISE', locationName: 5 })
  clock.offset = 0
  const { page, errors } = await screen(t, plain)
  await page.locator('.card[data-order="31"][data-level="red"]').waitFor()
  await page.locator('#sound-blocked').waitFor({ state: 'visible' })
  t.equal(await page.locator('#sound-toggle').textContent(), 'Sound blocked', 'the button does not claim "Sound on"')
  t.match(await page.locator('#sound-blocked').textContent(), /Sound is blocked by the browser.*Tap here/)
  const banner = await page.locator('#sound-blocked').boundingBox()
  t.ok(banner && banner.width >= 1270 && banner.height >= 50, `a full-width banner (${banner?.width}x${banner?.height})`)
  await page.waitForTimeout(1200)
  t.same(await tones(page), [], 'no tone was started while blocked')

  await page.locator('#sound-unblock').click()
  await page.locator('#sound-blocked').waitFor({ state: 'hidden' })
  t.equal(await page.locator('#sound-toggle').textContent(), 'Sound on')
  await page.waitForFunction(() => (window as unknown as { tones: unknown[] }).tones.length >= 2)
  const played = await tones(page)
  t.same(
    played.slice(0, 2),
    [
      { frequency: 988, state: 'running' },
      { frequency: 988, state: 'running' },
    ],
    'the late order beeps once the tap started the audio',
  )
  t.same(errors, [], 'no console errors')
})

t.test('the kiosk flags: the tone plays with no tap at all', async (t) => {
  t.ok(kioskFlags.includes('--autoplay-policy=no-user-gesture-required'), 'the script carries the autoplay flag')
  await api('DELETE', '/api/v2/activeorders')
  await api('POST', '/api/v2/gateway/settings', { targetTimeDefault: 2 })
  t.teardown(() => api('POST', '/api/v2/gateway/settings', { targetTimeDefault: 300 }))
  const { page, errors } = await screen(t, kiosk)
  t.equal(await page.locator('#sound-toggle').textContent(), 'Sound on')
  // The target is read with the figures: wait for it before the order is placed.
  await page.locator('#stat-target', { hasText: '0:02' }).waitFor()
  await api('POST', '/api/v2/activeorders', { name: 32, orderType: 'TO_GO' })
  await page.locator('.card[data-order="32"][data-level="red"]').waitFor()
  await page.waitForFunction(() => (window as unknown as { tones: unknown[] }).tones.length >= 2)
  t.match(await tones(page), [{ frequency: 988, state: 'running' }], 'played, the audio running, nobody touched the page')
  t.ok(await page.locator('#sound-blocked').isHidden(), 'no banner')
  t.same(errors, [], 'no console errors')
})

t.test('late orders remind at the interval this screen sets until they are dealt with', async (t) => {
  await api('DELETE', '/api/v2/activeorders')
  // On a tracker, so it can be paged.
  clock.offset = -400_000
  await api('POST', '/api/v2/simulator/start', { tracker: 33 })
  clock.offset = 0
  // The kiosk browser (no tap needed) with the page's timers under the test's control.
  const { page, errors } = await screen(t, kiosk, { fakeClock: true })
  await page.clock.runFor(1000)
  await page.locator('.card[data-order="33"][data-level="red"]').waitFor()
  await page.locator('#reminder').selectOption('30')
  const count = async () => (await tones(page)).length
  await page.clock.runFor(1000)
  const first = await count()
  t.ok(first >= 2, `reminded when it was seen late (${first} tones)`)
  await page.clock.runFor(20_000)
  t.equal(await count(), first, 'nothing more within the 30 s')
  await page.clock.runFor(11_000)
  t.equal(await count(), first + 2, 'again 30 s later')
  await page.clock.runFor(31_000)
  t.equal(await count(), first + 4, 'and again: still not dealt with')
  // Dealt with: the guest is paged.
  await api('POST', '/api/v2/activeorders/33/page', { tracking: true })
  await page.locator('.card[data-order="33"][data-paged="true"]').waitFor()
  await page.clock.runFor(95_000)
  t.equal(await count(), first + 4, 'paged: no more reminders')
  await page.reload()
  await page.locator('body[data-connection="live"]').waitFor()
  t.equal(await page.locator('#reminder').inputValue(), '30', 'the interval is kept on this screen')
  t.same(errors, [], 'no console errors')
})
