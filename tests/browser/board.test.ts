// The board in real headless Chromium against a real gateway with the simulated radio: the
// order flow, undo of a clear, the offline banner, simulator refusals, the login screen and
// the docs page. Layouts, floor, charts and the rush are in board-views.test.ts.
import path from 'node:path'
import t, { type Test } from 'tap'
import { sendControl } from '../../runtime/control/control.ts'
import { apiClient, artifacts, firstToken, gatewayOn, launchBrowser, openBoard, watchErrors } from '../helpers/browser.ts'
import { until } from '../helpers/until.ts'

const browser = await launchBrowser(t)

/** A gateway on a fresh data dir, its first token, and an API client with it. */
async function boardGateway(t: Test) {
  const dataDir = t.testdir()
  const gateway = await gatewayOn(dataDir)
  t.teardown(() => gateway.stop())
  const base = `http://127.0.0.1:${gateway.port}`
  const token = await firstToken(gateway, dataDir)
  return { dataDir, gateway, base, token, api: apiClient(base, token) }
}

t.test('the board: live orders from the simulator, paging, and a clear that can be undone', async (t) => {
  const { base, token, api } = await boardGateway(t)
  const { page, errors } = await openBoard(t, browser, base, token)

  await page.locator('#radio').waitFor({ state: 'visible' })
  t.equal(await page.locator('#radio').textContent(), 'radio: simulated', 'the header says plainly that the radio is simulated')
  t.ok(await page.locator('#network-toggle').isHidden(), 'no network map without a Zigbee network')
  // The simulator opens from the header; a tracker started there shows from the live feed (the
  // board's only source of orders). No time limit: a busy machine is slow, not wrong; the
  // feed's latency is npm run bench's WebSocket fan-out.
  await page.locator('#sim-toggle').click()
  await page.locator('#simulator').waitFor({ state: 'visible' })
  await page.locator('#sim-start input[name="tracker"]').fill('7')
  await page.locator('#sim-start button[value="dine-in"]').click()
  const card = page.locator('.card[data-order="7"]')
  await card.waitFor()
  t.equal(await card.locator('.headline').textContent(), 'Order 7', 'no table yet: the order number is the headline')
  t.equal(await card.locator('.where-label').textContent(), 'No table yet')
  t.equal(await card.locator('.state').textContent(), 'New')
  t.equal(await card.getAttribute('data-level'), 'green', 'a new order is within target')
  t.equal(await card.locator('.badge-text').textContent(), 'On time', 'the level is a word too')
  t.equal(await card.locator('.primary').textContent(), 'Page', 'not on a table yet: paging is the one action')

  // Placed on table 4: the table is the headline and clearing becomes the primary action.
  await page.locator('#sim-place input[name="tracker"]').fill('7')
  await page.locator('#sim-place select[name="table"]').selectOption('4')
  await page.locator('#sim-place button').click()
  await card.locator('.headline', { hasText: 'Table 4' }).waitFor()
  t.equal(await card.getAttribute('aria-label'), 'Table 4, order 7, on time', 'on a table: the table is the headline, the order number in its name')
  t.equal(await card.locator('.state').textContent(), 'On table')
  t.equal(await card.locator('.primary').textContent(), 'Clear')
  const before = await card.locator('.timer').textContent()
  await page.waitForFunction((text) => document.querySelector('.card[data-order="7"] .timer')?.textContent !== text, before)

  // Page from the menu behind "⋯"; then "Stop paging" is one tap away.
  await card.locator('.more').click()
  await card.locator('.menu [data-action="page"]').click()
  await page.locator('.card[data-order="7"][data-paged="true"]').waitFor()
  t.equal((await api('GET', '/api/v2/activeorders/7/page')).body.paged, true, 'the API says order 7 is paged')
  // The radio sends the page once the order's write is durable (the answer does not wait for the radio).
  await until(async () => (await api('GET', '/api/v2/simulator')).body.simulator.trackers[6].buzzing === true, 'tracker 7 buzzing')
  t.pass('tracker 7 buzzes')
  await card.locator('.more').click()
  await card.locator('.menu [data-action="cancel"]').click()
  await page.locator('.card[data-order="7"][data-paged="false"]').waitFor()

  // Clear, then Undo: nothing reaches the gateway.
  await page.locator('#sim-start input[name="tracker"]').fill('9')
  await page.locator('#sim-start button[value="to-go"]').click()
  await page.locator('.card[data-order="9"]').waitFor()
  await card.locator('.primary').click()
  await page.screenshot({ path: path.join(artifacts, 'board-undo.png') })
  await page.locator('.card[data-order="7"][data-pending="true"] .undo-button').click()
  await page.locator('.card[data-order="7"][data-pending="false"]').waitFor()
  // Clear 9 for real: once its undo window has ended and it is gone, 7's would have been too.
  await page.locator('.card[data-order="9"] .more').click()
  await page.locator('.card[data-order="9"] .menu [data-action="clear"]').click()
  t.equal((await api('GET', '/api/v2/activeorders/9')).status, 200, 'not sent during the undo window')
  await page.locator('.card[data-order="9"]').waitFor({ state: 'detached' })
  t.equal((await api('GET', '/api/v2/activeorders/9')).status, 404, 'sent when the window ended')
  t.equal((await api('GET', '/api/v2/activeorders/7')).status, 200, 'the undone clear was never sent')
  await page.locator('#stat-orders', { hasText: '1' }).waitFor()
  t.same(errors, [], 'no console errors')
})

t.test('over target counts the active late orders; refused simulator moves say why', async (t) => {
  const { base, token, api } = await boardGateway(t)
  // Target 1 s: an order started now is late within a second or two.
  await api('POST', '/api/v2/gateway/settings', { targetTimeDefault: 1 })
  await api('POST', '/api/v2/simulator/start', { tracker: 3 })
  const { page, errors } = await openBoard(t, browser, base, token)
  // Late, or already very late (twice the 1 s target) on a slow machine.
  await page.locator('.card[data-order="3"]:is([data-level="red"], [data-level="critical"]) .badge-text', { hasText: 'Late' }).waitFor()
  await page.locator('#stat-late-now', { hasText: '1' }).waitFor()
  await page.locator('#stat-exceeded', { hasText: '1' }).waitFor()
  t.pass('one late active order counts as over target before it is cleared')

  await page.locator('#sim-toggle').click()
  await page.locator('#sim-start input[name="tracker"]').fill('3')
  await page.locator('#sim-start button[value="dine-in"]').click()
  await page.locator('#toast', { hasText: 'tracker 3 already has order 3' }).waitFor()
  await page.locator('#sim-place input[name="tracker"]').fill('4')
  await page.locator('#sim-place button').click()
  await page.locator('#toast', { hasText: 'tracker 4 has no order: start it on a starter first' }).waitFor()
  t.equal((await api('GET', '/api/v2/activeorders')).body.count, 1, 'nothing changed')
  // The refusals are 400s the browser logs; nothing else.
  t.same(
    errors.filter((e) => !/status of 400/.test(e)),
    [],
    'no other console errors',
  )
})

t.test('the gateway stopped under an open board: a banner, a greyed board, no actions; back when it returns', async (t) => {
  const dataDir = t.testdir()
  let gateway = await gatewayOn(dataDir)
  const port = gateway.port
  t.teardown(() => gateway.stop())
  const base = `http://127.0.0.1:${port}`
  const token = await firstToken(gateway, dataDir)
  await apiClient(base, token)('POST', '/api/v2/simulator/start', { tracker: 2 })
  const { page, errors } = await openBoard(t, browser, base, token)
  const primary = page.locator('.card[data-order="2"] .primary')
  await primary.waitFor()
  t.ok(await page.locator('#offline').isHidden(), 'no banner while live')
  t.ok(await primary.isEnabled())

  await gateway.stop()
  await page.locator('#offline').waitFor({ state: 'visible' })
  t.match(await page.locator('#offline').textContent(), /No connection to the gateway/)
  t.ok(await page.locator('body.offline').count(), 'the board is greyed')
  t.ok(await primary.isDisabled(), 'actions are off')
  await page.screenshot({ path: path.join(artifacts, 'board-offline.png') })
  const banner = await page.locator('#offline').boundingBox()
  t.ok(banner && banner.width >= 1270, `the banner spans the screen (${banner?.width} px)`)

  gateway = await gatewayOn(dataDir, port)
  await page.locator('#offline').waitFor({ state: 'hidden' })
  t.ok(await primary.isEnabled(), 'actions are back')
  await apiClient(base, token)('POST', '/api/v2/simulator/start', { tracker: 3 })
  await page.locator('.card[data-order="3"]').waitFor()
  t.same(
    errors.filter((e) => !/WebSocket connection to .* failed|ERR_CONNECTION_REFUSED/.test(e)),
    [],
    'no other console errors',
  )
})

t.test('the login screen: no tabs, no error-looking pill; a rejected token asks again', async (t) => {
  const dataDir = t.testdir()
  const gateway = await gatewayOn(dataDir)
  t.teardown(() => gateway.stop())
  const context = await browser.newContext()
  t.teardown(() => context.close())
  const page = await context.newPage()
  const errors = watchErrors(page)
  await page.goto(`http://127.0.0.1:${gateway.port}/`)
  await page.locator('#token-from-button').waitFor()
  t.equal(
    await page.locator('.tab:visible, .pill:visible, .offline-banner:visible, .sound-blocked:visible').count(),
    0,
    'nothing on the login screen that does nothing or looks like an error',
  )
  t.match(
    await page.locator('#login .steps').textContent(),
    /Press the gateway's button.*npm run gateway -- button.*Within two minutes/s,
    'the two steps to see orders',
  )
  await page.screenshot({ path: path.join(artifacts, 'login.png') })
  await page.locator('#login summary').click()
  await page.locator('#token-input').fill('ab'.repeat(24))
  await page.locator('#token-form button[type="submit"]').click()
  await page.locator('#login-error', { hasText: 'not accepted' }).waitFor()
  t.equal(await page.evaluate(() => localStorage.getItem('trackerGateway.accessToken')), null, 'a bad token is not kept')

  await sendControl(dataDir, 'button.press')
  await page.locator('#token-from-button').click()
  await page.locator('body[data-connection="live"]').waitFor()
  t.ok(await page.locator('.tab[data-view="cards"]').isVisible(), 'the tabs come with the board')
  t.match(await page.evaluate(() => localStorage.getItem('trackerGateway.accessToken')), /^[0-9a-f]{48}$/)
  t.match(
    gateway.services.tokens.list().map((token) => token.name),
    [/^board-chrome-linux-[0-9a-f]{6}$/],
    'named after the browser, not "board"',
  )
  // The failed check of the bad token is a 401 the browser logs; nothing else.
  t.same(
    errors.filter((e) => !/status of 401/.test(e)),
    [],
    'no other console errors',
  )
})

t.test('the docs page renders Markdown from local assets and names no internal file', async (t) => {
  const dataDir = t.testdir()
  const gateway = await gatewayOn(dataDir)
  t.teardown(() => gateway.stop())
  const context = await browser.newContext()
  t.teardown(() => context.close())
  const page = await context.newPage()
  const errors = watchErrors(page)
  const requested = new Set<string>()
  page.on('request', (request) => requested.add(new URL(request.url()).host))
  await page.goto(`http://127.0.0.1:${gateway.port}/docs`)
  await page.locator('#v2_activeorders_id_page_post').waitFor()
  const text = (await page.locator('body').textContent()) ?? ''
  t.notOk(text.includes('`'), 'no raw backticks')
  t.notMatch(text, /\.ts\b|_manifest|functions\//, 'no internal file named')
  t.ok(await page.locator('#v2_statistics_get .summary code', { hasText: 'statistics' }).count(), 'inline code is code')
  await page.locator('#filter').fill('-13')
  t.ok(await page.locator('#v2_activeorders_id_page_post').isVisible(), 'paging documents -13')
  t.ok(await page.locator('#v2_statistics_get').isHidden(), 'the filter hides the rest')
  t.same([...requested], [`127.0.0.1:${gateway.port}`], 'nothing but the gateway is contacted')
  t.same(errors, [], 'no console errors')
})
