// The second late stage, in real Chromium (the kiosk's flags, so tones play with no tap; the
// page's timers on Playwright's fake clock): an order at twice the target is "Very late", in
// its own colour, frame and shape, with its own sound when it gets there; axe finds nothing
// serious on a board showing every stage.
import t from 'tap'
import { axeFindings, isSerious } from '../helpers/axe.ts'
import type { Page } from 'playwright-core'
import { apiClient, firstToken, gatewayOn, launchBrowser, ShiftedClock, watchErrors } from '../helpers/browser.ts'
import { kioskArguments } from '../helpers/kiosk-flags.ts'

const kioskFlags = kioskArguments().filter((arg) => arg.startsWith('--') && !arg.startsWith('--user-data-dir='))
const browser = await launchBrowser(t, kioskFlags)
const dataDir = t.testdir()
const clock = new ShiftedClock()
const gateway = await gatewayOn(dataDir, 0, {}, clock)
t.teardown(() => gateway.stop())
const base = `http://127.0.0.1:${gateway.port}`
const token = await firstToken(gateway, dataDir)
const api = apiClient(base, token)

function recordTones() {
  const tones: number[] = []
  ;(window as unknown as { tones: number[] }).tones = tones
  const start = OscillatorNode.prototype.start
  OscillatorNode.prototype.start = function (...args: Parameters<typeof start>) {
    tones.push(this.frequency.value)
    return start.apply(this, args)
  }
}
const veryLateTones = (page: Page) => page.evaluate(() => (window as unknown as { tones: number[] }).tones.filter((frequency) => frequency === 1319).length)

t.test('twice the target: very late, its own colour, shape and sound', async (t) => {
  await api('DELETE', '/api/v2/activeorders')
  // The default target is 5 minutes: 2, 6 and 11 minutes old, and one at 9 minutes.
  for (const [name, minutes] of [
    [51, 2],
    [52, 6],
    [53, 11],
    [54, 9],
  ] as const) {
    clock.offset = -minutes * 60_000
    await api('POST', '/api/v2/activeorders', { name, orderType: 'ON_PREMISE', locationName: name - 50 })
  }
  clock.offset = 0
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  t.teardown(() => context.close())
  await context.addInitScript((value) => {
    localStorage.setItem('trackerGateway.accessToken', value)
    localStorage.setItem('trackerGateway.sound', 'on')
  }, token)
  await context.addInitScript(recordTones)
  const page = await context.newPage()
  const errors = watchErrors(page)
  await page.clock.install()
  await page.goto(`${base}/`)
  await page.locator('body[data-connection="live"]').waitFor()
  await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 3000)
  await page.clock.runFor(1000)
  const card = (name: number) => page.locator(`.card[data-order="${name}"]`)
  await card(53).and(page.locator('[data-level="critical"]')).waitFor()
  t.equal(await card(52).getAttribute('data-level'), 'red', 'six minutes: late')
  t.equal(await card(54).getAttribute('data-level'), 'red', '9 minutes: still only late')
  const look = (name: number) =>
    card(name).evaluate((element) => ({
      background: getComputedStyle(element).backgroundColor,
      border: getComputedStyle(element).borderTopWidth,
      shape: getComputedStyle(element.querySelector('.shape')!).clipPath,
      word: element.querySelector('.badge-text')!.textContent,
      label: element.getAttribute('aria-label'),
    }))
  const [late, veryLate] = [await look(52), await look(53)]
  t.not(veryLate.background, late.background, `its own colour (${veryLate.background})`)
  t.not(veryLate.shape, late.shape, 'its own shape')
  t.ok(parseFloat(veryLate.border) > parseFloat(late.border), 'a heavier frame')
  t.equal(veryLate.word, 'Very late')
  t.match(veryLate.label, /very late/)
  await page.clock.runFor(1000)
  const atOpen = await veryLateTones(page)
  t.ok(atOpen >= 3, `the very-late sound when it was seen (${atOpen} tones)`)
  // Ten minutes for the third: the very-late sound at once, not at the next reminder (a minute).
  for (let second = 0; second < 40; second++) await page.clock.runFor(1000)
  t.equal(await veryLateTones(page), atOpen, 'nothing new within 40 s')
  for (let second = 0; second < 25; second++) await page.clock.runFor(1000)
  await card(54).and(page.locator('[data-level="critical"]')).waitFor()
  t.ok((await veryLateTones(page)) >= atOpen + 3, 'sounded again when the next order got there')

  // axe waits on timers: the page's time flows again.
  await page.clock.resume()
  const found = await axeFindings(page)
  t.same(found.filter(isSerious), [], 'axe: no serious or critical finding with every stage shown')
  t.same(errors, [], 'no console errors')
})
