// The chain board in a real Chromium, served by the HQ instance that ingests nothing: a change
// at a simulated site, ingested by the other instance, shows on it (through PostgreSQL's
// NOTIFY), a click opens the site's open orders, and the CSV buttons download the API's exports.
import t from 'tap'
import { SimulatedSite } from '../../bench/hq-sites.ts'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { artifacts, launchBrowser, watchErrors } from '../helpers/browser.ts'
import { startPostgres } from '../helpers/postgres.ts'
import { prefix, publishAll, publisher } from '../lib/hq/fixtures.ts'
import { startChain } from '../runtime/hq/fixtures.ts'

/**
 * A zone where it is now about midday (UTC+12 at midnight UTC, UTC-11 at 23:00 UTC): the order
 * created 7 minutes ago and the statistics' "today" fall on one day whenever the test runs.
 * In UTC, from 00:00 to 00:07 the order started yesterday and "today" counted 0 orders.
 */
function middayZone(now = new Date()): string {
  const offset = 12 - now.getUTCHours()
  return offset === 0 ? 'Etc/GMT' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`
}

const pg = await startPostgres({ fast: true })
t.teardown(() => pg.destroy())
const browser = await launchBrowser(t)

t.test('a change at one site reaches a chain board served by the other instance', async (t) => {
  const timezone = middayZone()
  const chain = await startChain(t, pg, { targetSeconds: 300, timezone })
  const client = await publisher(chain.broker.url)
  t.teardown(() => client.endAsync(true))
  const paris = new SimulatedSite('paris-11', { prefix, timezone })
  await publishAll(client, [paris.status(true)])

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true })
  t.teardown(() => context.close())
  const page = await context.newPage()
  const errors = watchErrors(page)
  await page.goto(chain.url(chain.b))
  await page.locator('#token').fill(chain.token)
  await page.locator('#login button[type=submit]').click()
  await page.locator('#live[data-state="live"]').waitFor()
  const card = page.locator('.card[data-site="paris-11"]')
  await card.waitFor()
  t.equal(await card.getAttribute('data-connection'), 'online')
  t.equal(await card.locator('[data-field="active"]').textContent(), '0')

  // An order waiting for 7 minutes (late against 5) appears at once, without a reload.
  const waiting = paris.create(Date.now() - 420_000)
  await publishAll(client, waiting.messages)
  await page.locator('.card[data-site="paris-11"] [data-field="active"]', { hasText: '1' }).waitFor()
  t.equal(await card.locator('[data-field="late"]').textContent(), '1')

  await card.click()
  const row = page.locator(`#site-orders tr[data-order="${waiting.order.name}"]`)
  await row.waitFor()
  t.equal(await row.getAttribute('class'), 'late')
  await page.screenshot({ path: path.join(artifacts, 'hq-board.png'), fullPage: true })
  // Cleared at the site: the row goes, the card counts nothing open.
  await publishAll(client, [...paris.locate(waiting.order.uuid, 4), ...paris.clear(waiting.order.uuid)])
  await row.waitFor({ state: 'detached' })
  await page.locator('.card[data-site="paris-11"] [data-field="active"]', { hasText: '0' }).waitFor()
  await page.locator('#totals', { hasText: '1 orders' }).waitFor()
  t.ok((await page.locator('#chart-orders rect').count()) === 24, 'a bar per hour')
  // The site's panel lists it among the last cleared; this month counts from the month's first day.
  await page.locator(`#site-history tr[data-order="${waiting.order.name}"]`).waitFor()
  await page.locator('#period').selectOption('month')
  await page.locator('#totals', { hasText: /^\d{4}-\d{2}-01( to \d{4}-\d{2}-\d{2})?: 1 orders/ }).waitFor()
  // The figures and the site's history as CSV files: what the API exports for the same query.
  const exported = async (route: string) => (await fetch(`${chain.url(chain.b)}${route}`, { headers: { authorization: `Bearer ${chain.token}` } })).text()
  const downloaded = async (button: string) => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator(button).click()])
    return { name: download.suggestedFilename(), text: readFileSync((await download.path())!, 'utf8') }
  }
  const statisticsFile = await downloaded('#statistics-csv')
  t.equal(statisticsFile.name, 'statistics-chain-month.csv')
  t.match(statisticsFile.text, /^period,from,to,site,figure,key,orders,.*\r\nmonth,\d{4}-\d{2}-01,[^,]*,,total,,1,1,/)
  t.equal(statisticsFile.text, await exported('/api/hq/statistics?period=month&format=csv'), "the API's export of this month")
  const historyFile = await downloaded('#history-csv')
  t.equal(historyFile.name, 'history-paris-11.csv')
  t.match(historyFile.text, waiting.order.uuid, 'the cleared order in it')
  t.equal(historyFile.text, await exported('/api/hq/sites/paris-11/history?format=csv'), "the API's export of its history")
  const alertsFile = await downloaded('#alerts-csv')
  t.equal(alertsFile.name, 'alerts-paris-11.csv')
  t.equal(alertsFile.text, await exported('/api/hq/sites/paris-11/alerts?format=csv'), "the API's export of its alerts")
  // The site's radio goes down: the card says so (the site is still online).
  await publishAll(client, [paris.status(true, { radioUp: false })])
  await page.locator('.card[data-site="paris-11"][data-radio="down"] .state', { hasText: 'radio down' }).waitFor()
  t.equal(await card.getAttribute('data-connection'), 'online')
  await page.locator('#site-facts', { hasText: 'radio down' }).waitFor()
  // Down for longer than radioDownMinutes: the alert shows in the open site's alert list.
  await chain.a.db.query(`UPDATE hq_sites SET radio_down_since = now() - interval '1 hour' WHERE site_id = 'paris-11'`)
  await chain.a.checkAlerts()
  await page.locator('#site-alerts tr[data-kind="radio"].late', { hasText: 'open' }).waitFor()
  t.equal(chain.b.ingest.status().applied.batches, 0, 'the serving instance ingested nothing')
  t.same(errors, [], 'no console errors')
})
