// The gateway goes away and comes back, in real Chromium (the kiosk's flags, so tones play
// with no tap) with the page's timers on Playwright's fake clock: the board polls every
// second while it is offline and is live again on the first poll after the gateway is back
// (not after a back-off grown to 15 s); once offline for the time this screen sets, an alarm
// sounds, again every 30 s, and late orders keep reminding meanwhile.
import t from 'tap'
import type { Page } from 'playwright-core'
import { apiClient, firstToken, gatewayOn, launchBrowser, ShiftedClock, watchErrors } from '../helpers/browser.ts'
import { kioskArguments } from '../helpers/kiosk-flags.ts'
import type { RunningGateway } from '../../runtime/wiring/main.ts'

const kioskFlags = kioskArguments().filter((arg) => arg.startsWith('--') && !arg.startsWith('--user-data-dir='))
const browser = await launchBrowser(t, kioskFlags)
const dataDir = t.testdir()
const clock = new ShiftedClock()
let gateway: RunningGateway = await gatewayOn(dataDir, 0, {}, clock)
t.teardown(() => gateway.stop())
const port = gateway.port
const base = `http://127.0.0.1:${port}`
const token = await firstToken(gateway, dataDir)
const api = apiClient(base, token)

/** Every oscillator started, by frequency (see tests/browser/board-sound.test.ts). */
function recordTones() {
  const tones: number[] = []
  ;(window as unknown as { tones: number[] }).tones = tones
  const start = OscillatorNode.prototype.start
  OscillatorNode.prototype.start = function (...args: Parameters<typeof start>) {
    tones.push(this.frequency.value)
    return start.apply(this, args)
  }
}
const tones = (page: Page) => page.evaluate(() => (window as unknown as { tones: number[] }).tones.slice())
/** The offline alarm's notes (660 then 440 Hz), counted as alarms. */
const alarms = async (page: Page) => (await tones(page)).filter((frequency) => frequency === 660).length / 2
const lateBeeps = async (page: Page) => (await tones(page)).filter((frequency) => frequency === 988).length / 2

t.test('back on the first poll after the gateway returns; an offline alarm after the set time, repeated', async (t) => {
  await api('DELETE', '/api/v2/activeorders')
  clock.offset = -420_000
  await api('POST', '/api/v2/activeorders', { name: 41, orderType: 'ON_PREMISE', locationName: 4 })
  clock.offset = 0
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  t.teardown(() => context.close())
  await context.addInitScript((value) => {
    localStorage.setItem('trackerGateway.accessToken', value)
    localStorage.setItem('trackerGateway.sound', 'on')
    localStorage.setItem('trackerGateway.lateReminder', '30')
  }, token)
  await context.addInitScript(recordTones)
  const page = await context.newPage()
  const errors = watchErrors(page)
  await page.clock.install()
  await page.goto(`${base}/`)
  await page.locator('body[data-connection="live"]').waitFor()
  // From here the page's time moves only when the test says (installed, it follows the real one).
  await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 3000)
  t.equal(await page.locator('#offline-alarm').inputValue(), '60', 'the alarm after a minute by default')
  await page.clock.runFor(1000)
  await page.locator('.card[data-order="41"][data-level="red"]').waitFor()

  await gateway.stop()
  await page.locator('#offline').waitFor({ state: 'visible', timeout: 10_000 })
  const lateBefore = await lateBeeps(page)
  // A long outage, a second at a time (each poll a real request that fails).
  for (let second = 0; second < 58; second++) await page.clock.runFor(1000)
  t.equal(await alarms(page), 0, 'no alarm within the minute')
  t.ok((await lateBeeps(page)) > lateBefore, 'the late order kept reminding while offline')
  for (let second = 0; second < 4; second++) await page.clock.runFor(1000)
  t.equal(await alarms(page), 1, 'the offline alarm after a minute')
  for (let second = 0; second < 30; second++) await page.clock.runFor(1000)
  t.equal(await alarms(page), 2, 'and again 30 s later, still offline')
  t.equal(await page.locator('body').getAttribute('data-connection'), 'reconnecting')

  // Back: the next poll (at most a second of the page's time) finds it and reconnects.
  gateway = await gatewayOn(dataDir, port, {}, clock)
  await page.clock.runFor(1000)
  await page.locator('body[data-connection="live"]').waitFor()
  await page.locator('#offline').waitFor({ state: 'hidden' })
  const alarmsThen = await alarms(page)
  for (let second = 0; second < 40; second++) await page.clock.runFor(1000)
  t.equal(await alarms(page), alarmsThen, 'live again: the alarm is silent')
  t.same(
    errors.filter((error) => !/ERR_CONNECTION_REFUSED|WebSocket/.test(error)),
    [],
    'no console errors but the refused connections',
  )
})
