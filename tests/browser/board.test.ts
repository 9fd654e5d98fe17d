// The board in real headless Chromium (Debian's chromium, driven by playwright-core) against
// a real gateway on a loopback port with the simulated radio. Screenshots go to
// test-artifacts/ (one of them, copied by hand, is docs/board.png).
import { mkdirSync } from 'node:fs'
import path from 'node:path'
import type { Page } from 'playwright-core'
import t from 'tap'
import { parseConfig } from '../../lib/config.ts'
import { memoryLogger } from '../../lib/log.ts'
import { sendControl } from '../../runtime/control.ts'
import { startGateway, type RunningGateway } from '../../runtime/main.ts'
import { buttonToken, launchBrowser } from '../helpers/browser.ts'

const artifacts = path.resolve(import.meta.dirname, '../../test-artifacts')

async function gatewayOn(dataDir: string, port = 0): Promise<RunningGateway> {
  const config = parseConfig({ port, host: '127.0.0.1', dataDir, radio: { kind: 'simulated' }, mdns: { enabled: false } })
  return startGateway({ config, log: memoryLogger('warn').log })
}

async function firstToken(gateway: RunningGateway, dataDir: string): Promise<string> {
  return buttonToken(gateway.port, dataDir)
}

/** Collects console errors and uncaught exceptions of a page. */
function watchErrors(page: Page): string[] {
  const errors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text())
  })
  page.on('pageerror', (error) => errors.push(error.message))
  return errors
}

t.test('the board: token once, live orders from the simulator, paging and clearing', async (t) => {
  mkdirSync(artifacts, { recursive: true })
  const dataDir = t.testdir()
  const gateway = await gatewayOn(dataDir)
  t.teardown(() => gateway.stop())
  const base = `http://127.0.0.1:${gateway.port}`
  const token = await firstToken(gateway, dataDir)
  const api = async (method: string, route: string) => {
    const response = await fetch(`${base}${route}`, { method, headers: { authorization: `Bearer ${token}` } })
    return { status: response.status, body: (await response.json()) as any }
  }

  const context = await launchBrowser(t)
  const page = context.pages()[0] ?? (await context.newPage())
  const errors = watchErrors(page)

  await page.goto(`${base}/`)
  await page.locator('#token-input').fill(token)
  await page.locator('#token-form button[type="submit"]').click()
  await page.locator('#connection[data-state="live"]').waitFor({ timeout: 5000 })
  await page.locator('#simulator').waitFor({ state: 'visible', timeout: 5000 })
  t.equal(await page.evaluate(() => localStorage.getItem('trackerGateway.accessToken')), token, 'the token is kept')

  // A tracker started on the dine-in starter shows on the board within a second.
  await page.locator('#sim-start input[name="tracker"]').fill('7')
  const clicked = Date.now()
  await page.locator('#sim-start button[value="dine-in"]').click()
  const card = page.locator('.card[data-order="7"]')
  await card.waitFor({ timeout: 1000 })
  t.ok(Date.now() - clicked < 1000, `card appeared after ${Date.now() - clicked} ms`)
  t.equal(await card.locator('.type').textContent(), 'Dine-in')
  t.equal(await card.locator('.state').textContent(), 'started')
  t.equal(await card.getAttribute('data-level'), 'green', 'a new order is within target')

  // A to-go tracker, and tracker 7 placed on table 4.
  await page.locator('#sim-start input[name="tracker"]').fill('12')
  await page.locator('#sim-start button[value="to-go"]').click()
  await page.locator('.card[data-order="12"] .type', { hasText: 'To go' }).waitFor({ timeout: 3000 })
  await page.locator('#sim-place input[name="tracker"]').fill('7')
  await page.locator('#sim-place select[name="table"]').selectOption('4')
  await page.locator('#sim-place button').click()
  await card.locator('.table', { hasText: '4' }).waitFor({ timeout: 3000 })
  t.equal(await card.locator('.state').textContent(), 'located')

  // The timer ticks.
  const before = await card.locator('.timer').textContent()
  await page.waitForFunction((text) => document.querySelector('.card[data-order="7"] .timer')?.textContent !== text, before, { timeout: 2500 })
  t.pass('the timer ticks')

  // Page from the board: the API and the simulated tracker agree.
  await card.locator('[data-action="page"]').click()
  await page.locator('.card[data-order="7"][data-paged="true"]').waitFor({ timeout: 2000 })
  const paged = await api('GET', '/api/v2/activeorders/7/page')
  t.equal(paged.body.paged, true, 'the API says order 7 is paged')
  const sim = await api('GET', '/api/v2/simulator')
  t.equal(sim.body.simulator.trackers.find((tr: any) => tr.number === 7).buzzing, true, 'tracker 7 buzzes')
  await page.locator('#sim-trackers li[data-tracker="7"][data-buzzing="true"]').waitFor({ timeout: 2000 })
  await page.screenshot({ path: path.join(artifacts, 'board-paged.png'), fullPage: true })

  // Cancel paging from the board.
  await card.locator('[data-action="cancel"]').click()
  await page.locator('.card[data-order="7"][data-paged="false"]').waitFor({ timeout: 2000 })
  t.equal((await api('GET', '/api/v2/activeorders/7/page')).body.paged, false, 'paging cancelled')

  // The floor view groups orders by table.
  await page.locator('.tab[data-view="floor"]').click()
  await page.locator('.table-tile[data-table="4"] .chip[data-order="7"]').waitFor({ timeout: 3000 })
  await page.locator('.table-tile[data-table="none"] .chip[data-order="12"]').waitFor({ timeout: 3000 })
  await page.screenshot({ path: path.join(artifacts, 'board-floor.png'), fullPage: true })
  await page.locator('.tab[data-view="cards"]').click()

  // Clear from the board: gone from the board and from the API; today's statistics count it.
  await card.locator('[data-action="clear"]').click()
  await card.waitFor({ state: 'detached', timeout: 2000 })
  const gone = await api('GET', '/api/v2/activeorders/7')
  t.equal(gone.status, 404, 'order 7 is no longer active')
  t.equal(gone.body.returnCode, -6)
  await page.locator('#stat-orders', { hasText: '1' }).waitFor({ timeout: 3000 })
  t.equal((await api('GET', '/api/v2/statistics')).body.statistics.ordersToday, 1)

  // An order created through the API (not the simulator) shows too.
  await fetch(`${base}/api/v2/activeorders`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 31, orderType: 'TO_GO', locationName: 9 }),
  })
  await page.locator('.card[data-order="31"]').waitFor({ timeout: 3000 })
  await page.screenshot({ path: path.join(artifacts, 'board.png'), fullPage: true })

  // A phone.
  await page.setViewportSize({ width: 390, height: 844 })
  await page.screenshot({ path: path.join(artifacts, 'board-phone.png'), fullPage: true })
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
  t.ok(overflow <= 0, `no sideways scrolling on a phone (overflow ${overflow}px)`)

  // Reloading keeps the token: no second prompt.
  await page.reload()
  await page.locator('#connection[data-state="live"]').waitFor({ timeout: 5000 })
  t.ok(await page.locator('#login').isHidden(), 'no token prompt after a reload')

  t.same(errors, [], 'no console errors')
})

t.test('the board reconnects by itself when the gateway restarts', async (t) => {
  const dataDir = t.testdir()
  let gateway = await gatewayOn(dataDir)
  const port = gateway.port
  t.teardown(() => gateway.stop())
  const token = await firstToken(gateway, dataDir)

  const context = await launchBrowser(t)
  const page = context.pages()[0] ?? (await context.newPage())
  const errors = watchErrors(page)
  await page.goto(`http://127.0.0.1:${port}/`)
  await page.evaluate((value) => localStorage.setItem('trackerGateway.accessToken', value), token)
  await page.reload()
  await page.locator('#connection[data-state="live"]').waitFor({ timeout: 5000 })

  await gateway.stop()
  await page.locator('#connection[data-state="reconnecting"]').waitFor({ timeout: 5000 })
  gateway = await gatewayOn(dataDir, port)
  await page.locator('#connection[data-state="live"]').waitFor({ timeout: 20_000 })
  t.pass('live again after the restart')

  // The feed works after reconnecting.
  await fetch(`http://127.0.0.1:${port}/api/v2/simulator/start`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ tracker: 3 }),
  })
  await page.locator('.card[data-order="3"]').waitFor({ timeout: 3000 })
  // While the gateway was down the browser logs failed WebSocket attempts; nothing else.
  t.same(errors.filter((e) => !/WebSocket connection to .* failed/.test(e)), [], 'no other console errors')
})

t.test('a rejected token brings back the prompt; the button window gives a new one', async (t) => {
  const dataDir = t.testdir()
  const gateway = await gatewayOn(dataDir)
  t.teardown(() => gateway.stop())
  const base = `http://127.0.0.1:${gateway.port}`

  const context = await launchBrowser(t)
  const page = context.pages()[0] ?? (await context.newPage())
  const errors = watchErrors(page)
  await page.goto(`${base}/`)
  await page.locator('#token-input').fill('ab'.repeat(24))
  await page.locator('#token-form button[type="submit"]').click()
  await page.locator('#login-error', { hasText: 'not accepted' }).waitFor({ timeout: 3000 })
  t.equal(await page.evaluate(() => localStorage.getItem('trackerGateway.accessToken')), null, 'a bad token is not kept')

  await sendControl(dataDir, 'button.press')
  await page.locator('#token-from-button').click()
  await page.locator('#connection[data-state="live"]').waitFor({ timeout: 5000 })
  t.match(await page.evaluate(() => localStorage.getItem('trackerGateway.accessToken')), /^[0-9a-f]{48}$/)
  // The failed check of the bad token is a 401 the browser logs; nothing else.
  t.same(errors.filter((e) => !/status of 401/.test(e)), [], 'no other console errors')
})

t.test('the docs page renders the OpenAPI document from local assets', async (t) => {
  const dataDir = t.testdir()
  const gateway = await gatewayOn(dataDir)
  t.teardown(() => gateway.stop())
  const context = await launchBrowser(t)
  const page = context.pages()[0] ?? (await context.newPage())
  const errors = watchErrors(page)
  const requested = new Set<string>()
  page.on('request', (request) => requested.add(new URL(request.url()).host))
  await page.goto(`http://127.0.0.1:${gateway.port}/docs`)
  await page.locator('#v2_activeorders_id_page_post').waitFor({ timeout: 5000 })
  await page.locator('#filter').fill('-13')
  t.ok(await page.locator('#v2_activeorders_id_page_post').isVisible(), 'paging documents -13')
  t.ok(await page.locator('#v2_statistics_get').isHidden(), 'the filter hides the rest')
  await page.screenshot({ path: path.join(artifacts, 'docs.png'), fullPage: false })
  t.same([...requested], [`127.0.0.1:${gateway.port}`], 'nothing but the gateway is contacted')
  t.same(errors, [], 'no console errors')
})
