// The board's three layouts with 30 orders, and the light theme (their screenshots are docs/board-*.png), the
// floor plan saved on one screen and seen on another, the charts against a known history,
// and a short lunch rush seen live. One Chromium for the file, one gateway for most tests.
import { copyFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import type { OrderSummary } from '../../lib/orders/types.ts'
import { dayBounds } from '../../lib/kernel/time.ts'
import { artifacts, boardGateway, launchBrowser, openBoard } from '../helpers/browser.ts'

const browser = await launchBrowser(t)
const { clock, gateway, base, token, api } = await boardGateway(t)
// UPDATE_SCREENSHOTS=1 copies the layout screenshots over docs/board-*.png.
const docs = path.resolve(import.meta.dirname, '../../docs')

/** A visible button or control smaller than 44 px in either direction, by its text. */
async function smallTargets(page: import('playwright-core').Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('button, select, input, a, .sim-trackers li')]
      .filter((el) => (el as HTMLElement).offsetParent !== null)
      .filter((el) => {
        const box = el.getBoundingClientRect()
        return box.height < 44 || box.width < 44
      })
      .map(
        (el) =>
          `${el.tagName} ${(el.textContent ?? '').trim().slice(0, 20)} ${Math.round(el.getBoundingClientRect().width)}x${Math.round(el.getBoundingClientRect().height)}`,
      ),
  )
}

t.test('three layouts, 30 orders: the pass shows all of them at once', async (t) => {
  // The demo's lunch at its peak (lib/orders/rush-peak.ts), laid out so the picture is the
  // same every time: a few orders already cleared (the figures and the recently cleared
  // list), then 30 trackers out, most on tables, a few paged to-go orders.
  for (const [n, minutesAgo, seconds] of [
    [41, 14, 250],
    [42, 12, 380],
    [43, 9, 200],
  ] as const) {
    clock.offset = -minutesAgo * 60_000
    await api('POST', '/api/v2/simulator/start', { tracker: n })
    clock.offset = -minutesAgo * 60_000 + seconds * 1000
    await api('POST', '/api/v2/simulator/clear', { tracker: n })
  }
  // Started 13 s apart, the first six and a half minutes ago: ages spread around the 5-minute target.
  for (let n = 1; n <= 30; n++) {
    clock.offset = -(31 - n) * 13_000
    await api('POST', '/api/v2/simulator/start', { tracker: n, toGo: n % 7 === 0 })
    if (n % 7 !== 0 && n % 5 !== 0) await api('POST', '/api/v2/simulator/place', { tracker: n, table: ((n * 11) % 30) + 1 })
  }
  clock.offset = 0
  await api('POST', '/api/v2/activeorders/14/page', { tracking: true })
  await api('POST', '/api/v2/activeorders/28/page', { tracking: true })
  const orders = gateway.services.orders.list()
  const { page, errors } = await openBoard(t, browser, base, token, { width: 1920, height: 1080 })
  await page.locator('.card').nth(29).waitFor()
  t.equal(orders.length, 30)

  const pass = await page.evaluate(() => {
    const cards = [...document.querySelectorAll('.card')].map((card) => card.getBoundingClientRect())
    const table = document.querySelector('.card .headline')!
    return {
      count: cards.length,
      lowest: Math.max(...cards.map((box) => box.bottom)),
      columns: new Set(cards.map((box) => Math.round(box.left))).size,
      tableFont: parseFloat(getComputedStyle(table).fontSize),
      timerFont: parseFloat(getComputedStyle(document.querySelector('.card .timer')!).fontSize),
    }
  })
  t.equal(pass.count, 30)
  const levels = await page.evaluate(() => [...document.querySelectorAll('.card')].map((card) => (card as HTMLElement).dataset.level))
  t.ok(levels.includes('red') && levels.includes('amber') && levels.includes('green'), 'late, due and on-time orders side by side')
  t.ok(pass.lowest <= 1080, `all 30 cards on one 1080p screen (lowest edge ${pass.lowest} px)`)
  t.equal(pass.columns, 6, 'six columns of large cards at the pass')
  t.ok(pass.tableFont >= 44 && pass.timerFont >= 40, `headline ${pass.tableFont}/${pass.timerFont} px: readable from three metres`)
  await page.screenshot({ path: path.join(artifacts, 'board-pass.png') })

  await page.setViewportSize({ width: 1024, height: 768 })
  await page.locator('body[data-fit-width="1024"]').waitFor()
  const tabletColumns = await page.evaluate(() => new Set([...document.querySelectorAll('.card')].map((c) => Math.round(c.getBoundingClientRect().left))).size)
  t.ok(tabletColumns >= 3 && tabletColumns <= 4, `${tabletColumns} columns on a tablet`)
  await page.screenshot({ path: path.join(artifacts, 'board-tablet.png') })

  await page.setViewportSize({ width: 390, height: 844 })
  await page.locator('body[data-fit-width="390"]').waitFor()
  const phone = await page.evaluate(() => ({
    columns: new Set([...document.querySelectorAll('.card')].map((c) => Math.round(c.getBoundingClientRect().left))).size,
    stats: document.querySelector('.stats')!.getBoundingClientRect().height,
    overflow: document.documentElement.scrollWidth - window.innerWidth,
    firstCard: document.querySelector('.card')!.getBoundingClientRect().top,
  }))
  t.equal(phone.columns, 1, 'one column on a phone')
  t.ok(phone.stats < 844 / 8, `the figures take ${phone.stats} px, not a quarter of the screen`)
  t.ok(phone.overflow <= 0, `no sideways scrolling (overflow ${phone.overflow} px)`)
  t.ok(phone.firstCard < 844 / 3, `the first order starts ${phone.firstCard} px down`)
  t.same(await smallTargets(page), [], 'every touch target is at least 44 px')
  await page.screenshot({ path: path.join(artifacts, 'board-phone.png') })
  // On a phone the simulator opens above the orders, not below all of them.
  await page.locator('#sim-toggle').click()
  await page.locator('#sim-trackers li').first().waitFor()
  const simTop = await page.locator('#simulator').boundingBox()
  const cardTop = await page.locator('.card').first().boundingBox()
  t.ok(simTop && cardTop && simTop.y < cardTop.y, 'the simulator sits above the orders')
  t.same(await smallTargets(page), [], 'simulator controls are at least 44 px too')
  await page.locator('#sim-toggle').click()
  // The light theme at the pass, for a bright room (then dark again for the other tests).
  await page.setViewportSize({ width: 1920, height: 1080 })
  await page.locator('body[data-fit-width="1920"]').waitFor()
  await page.locator('#screen-theme').selectOption('light')
  await page.waitForFunction(() => document.documentElement.dataset.theme === 'light')
  await page.evaluate(() => window.scrollTo(0, 0))
  await page.screenshot({ path: path.join(artifacts, 'board-pass-light.png') })
  await page.locator('#screen-theme').selectOption('dark')
  await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark')
  if (process.env.UPDATE_SCREENSHOTS === '1') {
    for (const name of ['board-pass', 'board-pass-light', 'board-tablet', 'board-phone'])
      copyFileSync(path.join(artifacts, `${name}.png`), path.join(docs, `${name}.png`))
  }
  t.same(errors, [], 'no console errors')
})

t.test('the floor plan arranged on one screen is the floor on another', async (t) => {
  const manager = await openBoard(t, browser, base, token)
  await manager.page.locator('.tab[data-view="floor"]').click()
  await manager.page.locator('#floor .table-tile[data-table="1"]').waitFor()
  await manager.page.locator('#floor-arrange').click()
  await manager.page.locator('[data-resize="columns"][data-step="1"]').click()
  await manager.page.locator('#floor-columns', { hasText: '7' }).waitFor()
  // Table 1 to the free seventh column of the first row.
  await manager.page.locator('#floor .table-tile[data-table="1"]').click()
  await manager.page.locator('#floor .table-tile[data-table="1"][data-selected="true"]').waitFor()
  await manager.page.locator('#floor [data-x="6"][data-y="0"]').click()
  await manager.page.locator('#floor .table-tile[data-table="1"][data-x="6"]').waitFor()
  // The grid is drawn again every second: a focused cell keeps the focus, and Enter picks it up.
  const cell = manager.page.locator('#floor [data-x="2"][data-y="1"]')
  await cell.focus()
  await manager.page.evaluate(() => {
    const seen = ((window as any).timerChanges = { count: 0 })
    new MutationObserver(() => void (seen.count += 1)).observe(document.getElementById('floor')!, { childList: true })
  })
  await manager.page.waitForFunction(() => (window as any).timerChanges.count >= 2)
  t.same(
    await manager.page.evaluate(() => [(document.activeElement as HTMLElement).dataset.x, (document.activeElement as HTMLElement).dataset.y]),
    ['2', '1'],
    'the focus stays on its cell through two redraws',
  )
  t.same(
    await manager.page.evaluate(
      () => [...document.querySelectorAll('#floor [data-x]')].filter((el) => !el.getAttribute('aria-label') && !(el.textContent ?? '').trim()).length,
    ),
    0,
    'each cell is named',
  )
  await manager.page.keyboard.press('Escape')
  await manager.page.locator('#floor-save').click()
  await manager.page.locator('#floor-editor').waitFor({ state: 'hidden' })
  const saved = (await api('GET', '/api/v2/floor')).body.floor
  t.equal(saved.columns, 7)
  t.match(
    saved.tables.find((table: { table: number }) => table.table === 1),
    { x: 6, y: 0 },
  )

  const runner = await openBoard(t, browser, base, token, { width: 1024, height: 768 })
  await runner.page.locator('.tab[data-view="floor"]').click()
  const tile = runner.page.locator('#floor .table-tile[data-table="1"]')
  await tile.waitFor()
  t.same([await tile.getAttribute('data-x'), await tile.getAttribute('data-y')], ['6', '0'], 'the second screen shows the saved floor')
  // Tables with orders take their orders' colour; chips carry the order numbers.
  const busy = runner.page.locator('#floor .table-tile:not([data-level="free"])').first()
  t.match(await busy.getAttribute('data-level'), /^(green|amber|red)$/)
  await runner.page.screenshot({ path: path.join(artifacts, 'board-floor.png') })
  t.same([...manager.errors, ...runner.errors], [], 'no console errors')
})

t.test('the charts draw the known history: time to table and orders per hour', async (t) => {
  const zone = gateway.services.settings.timezone
  const { start } = dayBounds(Date.now(), zone)
  const at = (hour: number, minute: number) => start + hour * 3_600_000 + minute * 60_000
  // Two hours of today half a day away from now: the orders the other tests here clear (in
  // the last minutes) never fall into them, whatever the hour the suite runs at.
  const busy = (Math.floor((Date.now() - start) / 3_600_000) + 12) % 24
  const calm = (busy + 1) % 24
  const summaries: OrderSummary[] = []
  // busy: ten orders of 100..1000 s (median 500 s, p90 900 s); calm: two of 120 s.
  for (let i = 0; i < 10; i++) summaries.push(row(i, at(busy, 20 + i), (i + 1) * 100))
  summaries.push(row(10, at(calm, 10), 120), row(11, at(calm, 40), 120))
  gateway.services.history.insertMany(summaries)
  const hourly = (await api('GET', '/api/v2/statistics/hourly')).body.hourly
  t.match(hourly.hours[busy], { orders: 10, medianSeconds: 500, p90Seconds: 900 })

  const { page, errors } = await openBoard(t, browser, base, token)
  await page.locator('.tab[data-view="charts"]').click()
  const peak = page.locator(`#chart-times rect[data-hour="${busy}"]`)
  await peak.waitFor()
  t.equal(await peak.getAttribute('data-median'), '500')
  t.equal(await peak.getAttribute('data-p90'), '900')
  t.match(await peak.getAttribute('class'), /over/, 'a median over the 5-minute target is drawn as over')
  t.match(await page.locator(`#chart-times rect[data-hour="${calm}"]`).getAttribute('class'), /within/)
  t.equal(await page.locator(`#chart-orders rect[data-hour="${busy}"]`).getAttribute('data-orders'), '10')
  t.equal(await page.locator(`#chart-orders rect[data-hour="${calm}"]`).getAttribute('data-orders'), '2')
  t.ok(await page.locator('#chart-times .target').count(), 'the target is drawn')
  await page.screenshot({ path: path.join(artifacts, 'board-charts.png'), fullPage: true })
  await page.locator('.range[data-range="week"]').click()
  await page.locator('.range[data-range="week"][aria-pressed="true"]').waitFor()
  await page.locator(`#chart-orders rect[data-hour="${busy}"][data-orders="10"]`).waitFor()
  t.same(errors, [], 'no console errors')
})

function row(n: number, cleared: number, seconds: number): OrderSummary {
  return {
    uuid: `00000000-0000-4000-8000-${String(900 + n).padStart(12, '0')}`,
    name: 100 + n,
    orderType: 'ON_PREMISE',
    locationName: 3,
    orderStarted: cleared - seconds * 1000,
    orderLocated: null,
    orderCleared: cleared,
  }
}

t.test('a short lunch rush is seen live by an open board', async (t) => {
  await api('DELETE', '/api/v2/activeorders')
  const { page, errors } = await openBoard(t, browser, base, token)
  await page.locator('#empty').waitFor({ state: 'visible' })
  // Watch cards come and go from inside the page.
  await page.evaluate(() => {
    const seen = new Set<string>()
    const gone = new Set<string>()
    ;(window as any).rushSeen = { seen, gone }
    new MutationObserver((records) => {
      for (const record of records) {
        for (const node of record.addedNodes) if (node instanceof HTMLElement && node.dataset.order) seen.add(node.dataset.order)
        for (const node of record.removedNodes) if (node instanceof HTMLElement && node.dataset.order) gone.add(node.dataset.order)
      }
    }).observe(document.getElementById('cards')!, { childList: true })
  })
  // 3 restaurant minutes at pace 60: guests for 3 s, the last food out within seconds.
  await gateway.services.rush.start({ minutes: 3, pace: 60, seed: 11, targetSeconds: 300 })
  await page.waitForFunction(() => (window as any).rushSeen.seen.size >= 3 && (window as any).rushSeen.gone.size >= 3)
  await page
    .locator('.card')
    .first()
    .waitFor({ state: 'detached', timeout: 20_000 })
    .catch(() => undefined)
  const figures = await page.evaluate(() => ({ seen: (window as any).rushSeen.seen.size, gone: (window as any).rushSeen.gone.size }))
  t.ok(figures.seen >= 3 && figures.gone >= 3, `${figures.seen} orders appeared and ${figures.gone} were cleared live`)
  gateway.services.rush.stop()
  t.same(errors, [], 'no console errors')
})
