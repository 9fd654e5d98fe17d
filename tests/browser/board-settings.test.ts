// Screen settings kept on the gateway per named screen, in real Chromium: a screen's choices
// (what it shows, its theme, its hour form) follow it to another browser signed in with its
// name, an admin sets them from another board (an open screen takes them at once), and axe finds no serious or critical finding
// in either theme. One Chromium and one gateway for the file.
import t from 'tap'
import type { Page } from 'playwright-core'
import { axeFindings, isSerious } from '../helpers/axe.ts'
import { until } from '../helpers/until.ts'
import { apiClient, boardGateway, launchBrowser, openBoard } from '../helpers/browser.ts'

const browser = await launchBrowser(t)
const { clock, base, token: manager, api } = await boardGateway(t)

/** Orders 1-12 around the target (every colour on the board), every third to go. */
async function rush() {
  await api('DELETE', '/api/v2/activeorders')
  for (let n = 1; n <= 12; n++) {
    clock.offset = -(13 - n) * 60_000
    await api('POST', '/api/v2/simulator/start', { tracker: n, toGo: n % 3 === 0 })
    if (n % 3 !== 0) await api('POST', '/api/v2/simulator/place', { tracker: n, table: n + 10 })
  }
  clock.offset = 0
}

const shownOrders = (page: Page) => page.evaluate(() => [...document.querySelectorAll<HTMLElement>('#cards .card')].map((card) => Number(card.dataset.order)))

async function seriousFindings(page: Page) {
  const found = await axeFindings(page)
  return found.filter(isSerious)
}

t.test("a screen's settings follow its name to another browser; an admin sets them from another board", async (t) => {
  await rush()
  const wall = (await api('POST', '/api/v2/accesstoken/generate?name=wall&scope=screen')).body.token.token as string
  const first = await openBoard(t, browser, base, wall, { width: 1280, height: 800 })
  await first.page.locator('#cards .card').nth(11).waitFor()
  await first.page.locator('#screen-filter').selectOption('to-go')
  await first.page.locator('#screen-theme').selectOption('light')
  await first.page.locator('#screen-hours').selectOption('12')
  await first.page.waitForFunction(() => document.querySelectorAll('#cards .card').length === 4)
  t.same(await shownOrders(first.page), [3, 6, 9, 12], 'only to go: the to-go orders, nothing else')
  t.equal(await first.page.evaluate(() => document.documentElement.dataset.theme), 'light')
  const kept = async () => (await apiClient(base, wall)('GET', '/api/v2/board/settings')).body.screen.settings
  await until(async () => (await kept()).hours === '12', 'the settings kept on the gateway', 10_000)
  t.match(await kept(), { filter: 'to-go', theme: 'light', hours: '12' })

  // Another browser (its own storage, nothing kept there) signed in as the same screen.
  const second = await openBoard(t, browser, base, wall, { width: 1280, height: 800 })
  await second.page.waitForFunction(() => document.documentElement.dataset.theme === 'light')
  await second.page.waitForFunction(() => document.querySelectorAll('#cards .card').length === 4)
  t.same(await shownOrders(second.page), [3, 6, 9, 12], 'the filter followed the screen')
  t.equal(await second.page.locator('#screen-hours').inputValue(), '12')
  // 12-hour times: a clear shows its time as h:mm AM/PM in the recently cleared list.
  await api('DELETE', '/api/v2/activeorders/3')
  t.match(await second.page.locator('#recent-list li[data-order="3"] .recent-time').textContent(), /^\d{1,2}:\d\d\s?(AM|PM)$/i)

  // The first wall browser stays open and no longer reads its settings (its refresh with the
  // figures, every 30 s, is held): what the admin changes must reach it over the live feed.
  let heldReads = 0
  await first.page.route('**/api/v2/board/settings', (route) => {
    if (route.request().method() !== 'GET') return route.continue()
    heldReads += 1 // never answered
  })

  // An admin, on its own board, picks the wall screen and sets it back to dark and every order.
  const admin = await openBoard(t, browser, base, manager, { width: 1280, height: 800 })
  await admin.page.locator('#settings-for-row').waitFor({ state: 'visible' })
  await admin.page.locator('#settings-for option[value="wall"]').waitFor({ state: 'attached' })
  await admin.page.locator('#settings-for').selectOption('wall')
  await admin.page.waitForFunction(() => (document.getElementById('screen-theme') as HTMLSelectElement).value === 'light')
  await admin.page.locator('#screen-theme').selectOption('dark')
  await admin.page.locator('#screen-filter').selectOption('all')
  await admin.page.locator('#settings-result', { hasText: 'Saved for wall' }).waitFor()
  await until(async () => (await kept()).filter === 'all', "the admin's change kept", 10_000)
  t.equal(await admin.page.evaluate(() => document.documentElement.dataset.theme), 'dark', "the admin's own screen did not change")
  t.equal((await apiClient(base, manager)('GET', '/api/v2/board/settings')).body.screen.settings.filter ?? 'all', 'all', 'nor its own settings')
  // The open wall screen takes them at once, from the feed (its reads are held).
  await first.page.waitForFunction(() => document.documentElement.dataset.theme === 'dark')
  await first.page.waitForFunction(() => document.querySelectorAll('#cards .card').length === 11)
  t.equal(await first.page.locator('#screen-filter').inputValue(), 'all', "its form shows the admin's choice")
  t.equal(await first.page.locator('#screen-hours').inputValue(), '12', 'and what the admin left alone')
  t.comment(`the first wall browser's settings reads held: ${heldReads}`)
  // A browser that was not open takes them when it reads its settings (here, on load).
  await second.page.reload()
  await second.page.waitForFunction(() => document.documentElement.dataset.theme === 'dark')
  await second.page.waitForFunction(() => document.querySelectorAll('#cards .card').length === 11)
  t.same([...first.errors, ...second.errors, ...admin.errors], [], 'no console errors')
})

t.test("languages: the whole board speaks the screen's language, kept with its settings", async (t) => {
  await rush()
  const { page, errors } = await openBoard(t, browser, base, manager, { width: 1366, height: 768 })
  await page.locator('#cards .card').nth(11).waitFor()
  const messages = (await import('../../web/board/messages.js' as string)).messages as Record<string, Record<string, string>>
  /** English texts shown on a board in another language: the leaf elements whose text is an English message (not the same in `language`). */
  const english = (language: string) =>
    page.evaluate(
      ({ en, other }) => {
        const differ = new Set(
          Object.keys(en)
            .filter((key) => en[key] !== other[key])
            .map((key) => en[key]),
        )
        return [...document.querySelectorAll('body *')]
          .filter((el) => el.children.length === 0 && !(el as HTMLElement).closest('[hidden], template'))
          .map((el) => el.textContent!.trim())
          .filter((text) => differ.has(text))
      },
      { en: messages.en!, other: messages[language]! },
    )
  for (const [language, title, notice] of [
    ['es', 'Tablero de pedidos', 'No hay mesa ni pedido 99 en el tablero'],
    ['de', 'Bestelltafel', 'Kein Tisch und keine Bestellung 99 auf der Tafel'],
  ] as const) {
    await page.locator('#screen-language').selectOption(language)
    await page.waitForFunction((want) => document.documentElement.lang === want, language)
    t.equal(await page.locator('h1').textContent(), title, `${language}: the heading`)
    const levels = ['levelGreen', 'levelAmber', 'levelRed', 'levelCritical'].map((key) => messages[language]![key])
    const badges = await page.locator('#cards .card .badge-text').allTextContents()
    t.same(
      badges.filter((badge) => !levels.includes(badge)),
      [],
      `${language}: every card's level in its words`,
    )
    for (const key of ['n', '9', '9', 'Enter']) await page.keyboard.press(key)
    await page.locator('#key-notice', { hasText: notice }).waitFor()
    t.same(await english(language), [], `${language}: no English text left on the orders view`)
  }
  t.equal((await api('GET', '/api/v2/board/settings')).body.screen.settings.language, 'de', 'kept on the gateway')
  await page.locator('#screen-language').selectOption('en')
  await page.waitForFunction(() => document.documentElement.lang === 'en')
  t.equal(await page.locator('h1').textContent(), 'Order board')
  t.same(errors, [], 'no console errors')
})

t.test('only dine-in; axe-core: no serious or critical finding on the board in the dark and in the light theme', async (t) => {
  await rush()
  const { page, errors } = await openBoard(t, browser, base, manager, { width: 1366, height: 768 })
  await page.locator('#cards .card').nth(11).waitFor()
  // Only dine-in: every order not to go (every third one is).
  await page.locator('#screen-filter').selectOption('dine-in')
  await page.waitForFunction(() => document.querySelectorAll('#cards .card').length === 8)
  t.same(await shownOrders(page), [1, 2, 4, 5, 7, 8, 10, 11], 'only dine-in: the orders at tables, nothing to go')
  await page.locator('#screen-filter').selectOption('all')
  await page.waitForFunction(() => document.querySelectorAll('#cards .card').length === 12)
  for (const theme of ['dark', 'light']) {
    await page.locator('#screen-theme').selectOption(theme)
    await page.waitForFunction((want) => document.documentElement.dataset.theme === want, theme)
    t.same(await seriousFindings(page), [], `${theme}: no serious or critical finding`)
  }
  await page.locator('#screen-theme').selectOption('dark')
  t.same(errors, [], 'no console errors')
})

t.test('areas: arranged from the keyboard in "Arrange tables"; a screen filtered to an area shows only the orders at its tables', async (t) => {
  await rush()
  t.teardown(() =>
    api('POST', '/api/v2/floor', { columns: 6, rows: 5, tables: Array.from({ length: 30 }, (_, i) => ({ table: i + 1, x: i % 6, y: Math.floor(i / 6) })) }),
  )
  const admin = await openBoard(t, browser, base, manager, { width: 1280, height: 800 })
  await admin.page.locator('.tab[data-view="floor"]').click()
  await admin.page.locator('#floor-arrange').click()
  t.ok(await admin.page.locator('#floor-area').isDisabled(), 'no table selected: the area field is off')
  for (const table of [11, 14]) {
    // Enter on a table selects it; the focus stays on its cell.
    await admin.page.locator(`#floor [data-table="${table}"]`).focus()
    await admin.page.keyboard.press('Enter')
    await admin.page.waitForFunction((n) => document.activeElement?.getAttribute('data-table') === String(n), table)
    await admin.page.locator('#floor-area-label', { hasText: `Area of table ${table}` }).waitFor()
    await admin.page.locator('#floor-area').fill('Terrace')
    await admin.page.keyboard.press('Enter')
    await admin.page.locator(`#floor [data-table="${table}"][data-area="Terrace"]`).waitFor()
    t.equal(await admin.page.evaluate(() => document.activeElement?.id), 'floor-area', 'the focus stays in the field')
    t.equal(await admin.page.locator(`#floor [data-table="${table}"]`).getAttribute('aria-pressed'), 'true', 'the table stays selected')
    await admin.page.locator(`#floor [data-table="${table}"]`).focus()
    // Escape on its cell lets it go where it is.
    await admin.page.keyboard.press('Escape')
    await admin.page.waitForFunction(() => !document.querySelector('#floor [aria-pressed="true"]'))
  }
  await admin.page.locator('#floor-save').click()
  const floor = async () => (await api('GET', '/api/v2/floor')).body.floor
  await until(async () => (await floor()).tables.filter((table: { area?: string }) => table.area === 'Terrace').length === 2, 'the areas saved', 10_000)

  const terrace = (await api('POST', '/api/v2/accesstoken/generate?name=terrace&scope=screen')).body.token.token as string
  const { page, errors } = await openBoard(t, browser, base, terrace, { width: 1280, height: 800 })
  await page.locator('#cards .card').nth(11).waitFor()
  await page.locator('#screen-filter option[value="area:Terrace"]', { hasText: 'only area: Terrace' }).waitFor({ state: 'attached' })
  await page.locator('#screen-filter').selectOption('area:Terrace')
  await page.waitForFunction(() => document.querySelectorAll('#cards .card').length === 2)
  t.same(await shownOrders(page), [1, 4], 'only the orders at tables 11 and 14: none elsewhere, none at no table (to go)')
  await until(async () => (await apiClient(base, terrace)('GET', '/api/v2/board/settings')).body.screen.settings.filter === 'area:Terrace', 'kept', 10_000)
  // The area's entry speaks the screen's language too.
  await page.locator('#screen-language').selectOption('de')
  await page.locator('#screen-filter option[value="area:Terrace"]', { hasText: 'nur Bereich: Terrace' }).waitFor({ state: 'attached' })
  t.equal(await page.locator('#screen-filter').inputValue(), 'area:Terrace', 'still chosen')
  await page.locator('#screen-language').selectOption('en')
  t.same(errors, [], 'no console errors')
})
