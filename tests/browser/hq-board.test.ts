// The chain board in a real Chromium, served by the HQ instance that ingests nothing: a change
// at a simulated site, ingested by the other instance, shows on it (through PostgreSQL's
// NOTIFY), and a click opens the site's open orders.
import t from 'tap'
import { SimulatedSite } from '../../bench/hq-sites.ts'
import path from 'node:path'
import { artifacts, launchBrowser, watchErrors } from '../helpers/browser.ts'
import { startPostgres } from '../helpers/postgres.ts'
import { prefix, publishAll, publisher } from '../lib/hq/fixtures.ts'
import { startChain } from '../runtime/hq/fixtures.ts'

const pg = await startPostgres({ fast: true })
t.teardown(() => pg.destroy())
const browser = await launchBrowser(t)

t.test('a change at one site reaches a chain board served by the other instance', async (t) => {
  const chain = await startChain(t, pg, { targetSeconds: 300 })
  const client = await publisher(chain.broker.url)
  t.teardown(() => client.endAsync(true))
  const paris = new SimulatedSite('paris-11', { prefix })
  await publishAll(client, [paris.status(true)])

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  t.teardown(() => context.close())
  const page = await context.newPage()
  const errors = watchErrors(page)
  await page.goto(chain.url(chain.b))
  await page.locator('#token').fill(chain.token)
  await page.locator('#login button[type=submit]').click()
  await page.locator('#live[data-state="live"]').waitFor({ timeout: 10_000 })
  const card = page.locator('.card[data-site="paris-11"]')
  await card.waitFor({ timeout: 10_000 })
  t.equal(await card.getAttribute('data-connection'), 'online')
  t.equal(await card.locator('[data-field="active"]').textContent(), '0')

  // An order waiting for 7 minutes (late against 5) appears at once, without a reload.
  const waiting = paris.create(Date.now() - 420_000)
  await publishAll(client, waiting.messages)
  await page.locator('.card[data-site="paris-11"] [data-field="active"]', { hasText: '1' }).waitFor({ timeout: 10_000 })
  t.equal(await card.locator('[data-field="late"]').textContent(), '1')

  await card.click()
  const row = page.locator(`#site-orders tr[data-order="${waiting.order.name}"]`)
  await row.waitFor({ timeout: 10_000 })
  t.equal(await row.getAttribute('class'), 'late')
  await page.screenshot({ path: path.join(artifacts, 'hq-board.png'), fullPage: true })
  // Cleared at the site: the row goes, the card counts nothing open.
  await publishAll(client, [...paris.locate(waiting.order.uuid, 4), ...paris.clear(waiting.order.uuid)])
  await row.waitFor({ state: 'detached', timeout: 10_000 })
  await page.locator('.card[data-site="paris-11"] [data-field="active"]', { hasText: '0' }).waitFor({ timeout: 10_000 })
  await page.locator('#totals', { hasText: '1 orders' }).waitFor({ timeout: 10_000 })
  t.ok((await page.locator('#chart-orders rect').count()) === 24, 'a bar per hour')
  // The site's radio goes down: the card says so (the site is still online).
  await publishAll(client, [paris.status(true, { radioUp: false })])
  await page.locator('.card[data-site="paris-11"][data-radio="down"] .state', { hasText: 'radio down' }).waitFor({ timeout: 10_000 })
  t.equal(await card.getAttribute('data-connection'), 'online')
  await page.locator('#site-facts', { hasText: 'radio down' }).waitFor({ timeout: 10_000 })
  t.equal(chain.b.ingest.status().applied.batches, 0, 'the serving instance ingested nothing')
  t.same(errors, [], 'no console errors')
})
