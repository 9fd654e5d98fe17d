// The pass screen under a rush, in real Chromium: nothing active hidden without a count, the
// layout chosen to fit (1920x1080 with 40 orders, 1366x768, 125 % scaling), the sizes read
// from three metres, a bump bar's keys and touch search, signing out only on purpose, a new screen signed in
// with a code approved from a second browser, the recently cleared list, and axe-core on the
// three layouts. One Chromium and one gateway for the file.
import path from 'node:path'
import t from 'tap'
import type { Page } from 'playwright-core'
import { axeFindings, isSerious } from '../helpers/axe.ts'
import { until } from '../helpers/until.ts'
import { apiClient, artifacts, boardGateway, launchBrowser, openBoard, watchErrors } from '../helpers/browser.ts'

const browser = await launchBrowser(t)
const { clock, gateway, base, token, api } = await boardGateway(t)

/** `count` orders started 13 s apart, most on tables, every seventh to go. */
async function rush(count: number) {
  await api('DELETE', '/api/v2/activeorders')
  for (let n = 1; n <= count; n++) {
    clock.offset = -(count + 1 - n) * 13_000
    await api('POST', '/api/v2/simulator/start', { tracker: n, toGo: n % 7 === 0 })
    if (n % 7 !== 0 && n % 5 !== 0) await api('POST', '/api/v2/simulator/place', { tracker: n, table: ((n * 11) % 30) + 1 })
  }
  clock.offset = 0
}

/** What the screen shows: cards whose middle is in view, and what the overflow bar counts. */
async function shown(page: Page) {
  return page.evaluate(() => {
    const bar = document.getElementById('overflow')!
    const top = document.querySelector('.topbar')!.getBoundingClientRect().bottom
    const bottom = window.innerHeight - (bar.hidden ? 0 : bar.getBoundingClientRect().height)
    const cards = [...document.querySelectorAll('.card')].map((card) => card.getBoundingClientRect())
    const visible = cards.filter((box) => (box.top + box.bottom) / 2 >= top && (box.top + box.bottom) / 2 <= bottom).length
    return {
      total: cards.length,
      visible,
      bar: bar.hidden ? '' : bar.textContent,
      below: Number(bar.dataset.below ?? 0),
      above: Number(bar.dataset.above ?? 0),
      size: document.getElementById('cards')!.dataset.size,
    }
  })
}

/** The buttons and links the overflow bar covers (none may be). */
async function underBar(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const bar = document.getElementById('overflow')!
    if (bar.hidden) return []
    const cover = bar.getBoundingClientRect()
    return [...document.querySelectorAll('button, a, select, input')]
      .filter((el) => (el as HTMLElement).offsetParent !== null)
      .filter((el) => {
        const box = el.getBoundingClientRect()
        return box.bottom > cover.top && box.top < cover.bottom && box.right > cover.left && box.left < cover.right
      })
      .map((el) => el.getAttribute('aria-label') ?? el.textContent ?? '')
  })
}

async function settled(page: Page, count: number) {
  await page
    .locator('.card')
    .nth(count - 1)
    .waitFor()
  await page.waitForFunction(() => document.body.dataset.fitWidth === String(window.innerWidth))
}

t.test('overflow: every active order is on screen or counted, with where it is', async (t) => {
  await rush(40)
  const big = await openBoard(t, browser, base, token, { width: 1920, height: 1080 })
  await settled(big.page, 40)
  const pass = await shown(big.page)
  t.equal(pass.total, 40)
  t.equal(pass.visible + pass.below + pass.above, 40, `1920x1080: ${pass.visible} shown, ${pass.below} counted below`)
  t.equal(pass.visible, 40, 'the layout fits 40 orders on a 1080p screen')
  t.equal(pass.bar, '', 'nothing to count')
  // Rows sized each by its own cards: medium (20 px words, 7 columns) fits 40, not only compact.
  const chosen = await big.page.evaluate(() => ({
    columns: new Set([...document.querySelectorAll('.card')].map((card) => Math.round(card.getBoundingClientRect().left))).size,
    meta: parseFloat(getComputedStyle(document.querySelector('.card .meta')!).fontSize),
  }))
  t.equal(pass.size, 'medium', 'the largest size that fits 40 at 1920x1080')
  t.equal(chosen.columns, 7, 'in seven columns')
  t.ok(chosen.meta >= 20, `words on a card ${chosen.meta} px`)
  await big.page.screenshot({ path: path.join(artifacts, 'board-pass-40.png') })

  // A fixed density that cannot fit: the bar counts what is not shown, and says where.
  await big.page.locator('#density').selectOption('large')
  await big.page.waitForFunction(() => document.getElementById('cards')!.dataset.size === 'large')
  const large = await shown(big.page)
  t.ok(large.below > 0, `large cards: ${large.below} below`)
  t.equal(large.visible + large.below, 40, 'each one not shown is counted')
  t.match(large.bar, new RegExp(`^${large.below} more orders below ↓ \\(`))
  await big.page.reload()
  await settled(big.page, 40)
  t.equal((await shown(big.page)).size, 'large', 'the density is kept on this screen')
  // Scrolled down: what went off the top is counted as above.
  await big.page.keyboard.press('PageDown')
  await big.page.waitForFunction(() => Number(document.getElementById('overflow')!.dataset.above) > 0)
  const scrolled = await shown(big.page)
  t.equal(scrolled.visible + scrolled.above + scrolled.below, 40, `scrolled: ${scrolled.above} above, ${scrolled.below} below`)
  t.match(scrolled.bar, /more orders? above ↑/)
  await big.page.locator('#density').selectOption('auto')

  await rush(31)
  const tv = await openBoard(t, browser, base, token, { width: 1366, height: 768 })
  await settled(tv.page, 31)
  const small = await shown(tv.page)
  t.equal(small.visible + small.below, 31, `1366x768: ${small.visible} shown, ${small.below} counted`)
  // Four whole rows of six: the fifth would be cut by the bar, so it goes below with the rest.
  t.ok(small.visible >= 24, `a short wide TV shows ${small.visible} of 31, not a tablet's 16`)
  if (small.below) t.match(small.bar, /below ↓/)
  t.same(await underBar(tv.page), [], '1366x768: no control under the overflow bar')
  // A tablet: the row the bar would cut goes below the screen, buttons and all.
  await tv.page.setViewportSize({ width: 1024, height: 768 })
  await tv.page.locator('body[data-fit-width="1024"]').waitFor()
  const tablet = await shown(tv.page)
  t.ok(tablet.below > 0, `1024x768: ${tablet.below} counted below`)
  t.equal(tablet.visible + tablet.below, 31, 'each one shown or counted')
  t.same(await underBar(tv.page), [], '1024x768: no control under the overflow bar')
  await tv.page.screenshot({ path: path.join(artifacts, 'board-1024-overflow.png') })
  await tv.page.setViewportSize({ width: 1366, height: 768 })
  await tv.page.screenshot({ path: path.join(artifacts, 'board-1366.png') })

  const scaled = await browser.newContext({ viewport: { width: 1536, height: 864 }, deviceScaleFactor: 1.25 })
  t.teardown(() => scaled.close())
  await scaled.addInitScript((value) => localStorage.setItem('trackerGateway.accessToken', value), token)
  const zoomed = await scaled.newPage()
  await zoomed.goto(`${base}/`)
  await settled(zoomed, 31)
  const at125 = await shown(zoomed)
  t.equal(at125.visible + at125.below, 31, `1920x1080 at 125 %: ${at125.visible} shown, ${at125.below} counted`)
  t.ok(at125.visible >= 24, `most of them shown (${at125.visible})`)
  t.same([...big.errors, ...tv.errors], [], 'no console errors')
})

t.test('readable from three metres: the identifier a runner needs is the headline; sizes written down are met', async (t) => {
  await rush(30)
  const { page, errors } = await openBoard(t, browser, base, token, { width: 1920, height: 1080 })
  await settled(page, 30)
  const sizes = await page.evaluate(() => {
    const px = (el: Element | null) => (el ? parseFloat(getComputedStyle(el).fontSize) : 0)
    const secondary = [...document.querySelectorAll('.card .meta > :not(.visually-hidden):not([hidden]), .card .actions button')]
      .filter((el) => (el as HTMLElement).offsetParent !== null)
      .map(px)
    const togo = document.querySelector('.card[data-where="togo"]')!
    return {
      size: document.getElementById('cards')!.dataset.size,
      headline: px(document.querySelector('.card .headline')),
      timer: px(document.querySelector('.card .timer')),
      smallestSecondary: Math.min(...secondary),
      togoHeadline: togo.querySelector('.headline')!.textContent,
      togoOrder: (togo as HTMLElement).dataset.order,
      togoHeadlinePx: px(togo.querySelector('.headline')),
      // Every number a card shows outside its timer: one per card, the one called out.
      numbers: [...document.querySelectorAll<HTMLElement>('.card')].map((card) => {
        const words = [...card.querySelectorAll<HTMLElement>('.head > :not(.timer), .meta > :not(.visually-hidden):not([hidden])')]
          .map((el) => el.innerText)
          .join(' ')
        return { callout: card.dataset.callout, numbers: words.match(/\d+/g) ?? [] }
      }),
      tableCard: (document.querySelector('.card[data-where="table"] .headline') as HTMLElement).innerText,
    }
  })
  t.equal(sizes.size, 'large', '30 orders fit at the large size')
  t.ok(sizes.headline >= 48 && sizes.timer >= 43, `headline ${sizes.headline} px, timer ${sizes.timer} px`)
  t.ok(sizes.smallestSecondary >= 24, `every other word on a card at least 24 px (smallest ${sizes.smallestSecondary})`)
  t.equal(sizes.togoHeadline, `Order ${sizes.togoOrder}`, 'to go: the order number is the headline')
  t.match(sizes.tableCard, /^Table \d+$/, 'on a table: the table, said so')
  t.same(
    sizes.numbers.filter((card) => card.numbers.length !== 1 || card.numbers[0] !== card.callout),
    [],
    'one number per card, the one called out',
  )
  t.equal(sizes.togoHeadlinePx, sizes.headline, 'as big as a table number')
  // Compact (chosen to fit a bigger rush): smaller, still within what docs/api.md writes down.
  await page.locator('#density').selectOption('compact')
  await page.waitForFunction(() => document.getElementById('cards')!.dataset.size === 'compact')
  const compact = await page.evaluate(() => ({
    headline: parseFloat(getComputedStyle(document.querySelector('.card .headline')!).fontSize),
    meta: parseFloat(getComputedStyle(document.querySelector('.card .meta')!).fontSize),
  }))
  t.ok(compact.headline >= 31 && compact.meta >= 15.5, `compact: headline ${compact.headline} px, secondary ${compact.meta} px`)
  await page.locator('#density').selectOption('auto')
  t.same(errors, [], 'no console errors')
})

t.test('a bump bar: select by position or number, clear, focus on the next card, undo, page, Escape', async (t) => {
  await rush(12)
  const { page, errors } = await openBoard(t, browser, base, token, { width: 1920, height: 1080 })
  await settled(page, 12)
  const focusedOrder = () => page.evaluate(() => (document.activeElement?.closest('.card') as HTMLElement | null)?.dataset.order ?? null)
  const orderAt = (index: number) => page.evaluate((i) => (document.querySelectorAll('.card')[i] as HTMLElement).dataset.order!, index)

  await page.keyboard.press('1')
  t.equal(await focusedOrder(), await orderAt(0), '1 selects the first card')
  await page.keyboard.press('3')
  const third = await orderAt(2)
  t.equal(await focusedOrder(), third, '3 selects the third')
  await page.keyboard.press('b')
  await page.locator(`.card[data-order="${third}"][data-pending="true"]`).waitFor()
  t.equal(await focusedOrder(), await orderAt(3), 'after a clear the focus moves to the next card')
  await page.keyboard.press('u')
  await page.locator(`.card[data-order="${third}"][data-pending="false"]`).waitFor()
  t.equal(await focusedOrder(), third, 'undo brings the card back, selected')
  t.equal((await api('GET', `/api/v2/activeorders/${third}`)).status, 200, 'nothing was sent')

  // By the number the card shows: order 12 is on table 13, so # 1 3 Enter; then a page with p.
  await page.keyboard.press('#')
  await page.keyboard.press('1')
  await page.keyboard.press('3')
  await page.locator('#typed-number', { hasText: '13' }).waitFor()
  await page.keyboard.press('Enter')
  t.equal(await focusedOrder(), '12', '# 13 Enter selects the card headed 13 (order 12)')
  t.equal(await page.locator('.card[data-order="12"]').getAttribute('data-callout'), '13')
  // A number no card shows: the selection stays and a notice says so.
  for (const key of ['n', '4', '4', 'Enter']) await page.keyboard.press(key)
  await page.locator('#key-notice', { hasText: 'No table or order 44' }).waitFor()
  t.equal(await focusedOrder(), '12', 'the selection stays')
  // Touch search, for a screen without keys: the same, from the header, on any view.
  await page.locator('.tab[data-view="floor"]').click()
  await page.locator('#find-number').fill('13')
  await page.locator('#find-form button[type="submit"]').click()
  await page.locator('#cards-view').waitFor({ state: 'visible' })
  t.equal(await focusedOrder(), '12', 'touch search for 13: the orders again, the card headed 13 selected')
  await page.locator('#find-number').fill('44')
  await page.locator('#find-number').press('Enter')
  await page.locator('#key-notice', { hasText: 'No table or order 44' }).waitFor()
  t.equal(await page.locator('.card[data-selected="true"]').getAttribute('data-order'), '12', 'no match: a notice, the selection stays')
  await page.locator('.card[data-order="12"]').focus()
  await page.keyboard.press('ArrowLeft')
  t.equal(await focusedOrder(), '11', 'arrows move the selection')
  await page.keyboard.press('ArrowRight')
  await page.keyboard.press('p')
  await page.locator('.card[data-order="12"][data-paged="true"]').waitFor()
  t.equal((await api('GET', '/api/v2/activeorders/12/page')).body.paged, true, 'p paged order 12')
  await page.keyboard.press('Home')
  t.equal(await focusedOrder(), await orderAt(0), 'Home: the first card')

  // Delete clears for real once the undo window ends; the next card is selected.
  await page.keyboard.press('2')
  const second = await orderAt(1)
  await page.keyboard.press('Delete')
  t.equal(await focusedOrder(), await orderAt(2), 'focus on the next card')
  await page.locator(`.card[data-order="${second}"]`).waitFor({ state: 'detached' })
  t.equal((await api('GET', `/api/v2/activeorders/${second}`)).status, 404, 'cleared on the gateway')

  // The ⋯ menu closes on Escape, the focus back on its button.
  const card = page.locator('.card').first()
  await card.locator('.more').click()
  await card.locator('.menu').waitFor({ state: 'visible' })
  await page.keyboard.press('Escape')
  await card.locator('.menu').waitFor({ state: 'hidden' })
  t.equal(await page.evaluate(() => document.activeElement?.classList.contains('more')), true, 'focus back on ⋯')
  t.same(errors, [], 'no console errors')
})

t.test('recently cleared: by this screen and at the unit, with recall', async (t) => {
  await rush(6)
  const { page, errors } = await openBoard(t, browser, base, token, { width: 1920, height: 1080 })
  await settled(page, 6)
  // Earlier tests cleared orders with these numbers too: the entries are told apart by UUID.
  const uuidOf = async (name: number) => (await api('GET', `/api/v2/activeorders/${name}`)).body.activeorder.uuid as string
  const [two, three] = [await uuidOf(2), await uuidOf(3)]
  // At the unit: the simulator's pass clears tracker 2.
  await api('POST', '/api/v2/simulator/clear', { tracker: 2 })
  const unit = page.locator(`#recent-list li[data-uuid="${two}"]`)
  await unit.waitFor()
  t.equal(await unit.locator('.recent-by').textContent(), 'another screen or the unit')
  // Here: clear order 3 with its button (the undo window passes).
  await page.locator('.card[data-order="3"] .primary').click()
  await page.locator(`#recent-list li[data-uuid="${three}"] .recent-by`, { hasText: 'this screen' }).waitFor()
  t.equal(await page.locator('#recent-list li').first().getAttribute('data-uuid'), three, 'newest first')
  // A screen opened later sees them too (from the history).
  const later = await openBoard(t, browser, base, token)
  await later.page.locator(`#recent-list li[data-uuid="${two}"]`).waitFor()
  await later.page.locator(`#recent-list li[data-uuid="${three}"]`).waitFor()
  // Recall: the order is back on the board (a new order with the same number and table).
  await unit.getByRole('button', { name: /Recall order 2/ }).click()
  await page.locator('.card[data-order="2"]').waitFor()
  t.equal((await api('GET', '/api/v2/activeorders/2')).status, 200)
  await unit.waitFor({ state: 'detached' })
  // A late order recalled is as late as it was: its original start, not 0:00 and green.
  clock.offset = -700_000
  const started = await api('POST', '/api/v2/activeorders', { name: 9, orderType: 'ON_PREMISE', locationName: 30 })
  clock.offset = 0
  const late = started.body.activeorder.uuid as string
  // (Its feed frame was taken on the shifted clock: this page shows it from 0:00 until it reloads.)
  await page.locator('.card[data-order="9"]').waitFor()
  t.ok((await api('GET', '/api/v2/activeorders/9')).body.activeorder.elapsedTime >= 700, 'very late on the gateway: 700 s')
  await api('DELETE', `/api/v2/activeorders/${late}`)
  const recalled = page.locator(`#recent-list li[data-uuid="${late}"]`)
  await recalled.getByRole('button', { name: /Recall order 9/ }).click()
  const back = page.locator('.card[data-order="9"]')
  await back.waitFor()
  t.equal(await back.getAttribute('data-level'), 'critical', 'the recalled order is very late, as it was')
  t.equal(await back.getAttribute('data-callout'), '30', 'back on its table')
  t.match(await back.locator('.timer').textContent(), /^1[12]:\d\d$/, 'its timer counts from the original start')
  t.equal(await page.locator('.card').first().getAttribute('data-order'), '9', 'first on the board: the oldest order')
  t.same([...errors, ...later.errors], [], 'no console errors')
})

t.test("signing out needs a second, deliberate step, comes after the cards, and revokes the screen's token", async (t) => {
  await rush(3)
  // Its own screen token: signing out gives it up at the gateway.
  const wallToken = (await api('POST', '/api/v2/accesstoken/generate?name=wall-sign-out&scope=screen')).body.token.token as string
  const { page, errors } = await openBoard(t, browser, base, wallToken)
  await settled(page, 3)
  const order = await page.evaluate(() => {
    const signOut = document.getElementById('forget-token')!
    const sound = document.getElementById('sound-toggle')!
    const lastCard = [...document.querySelectorAll('.card button')].at(-1)!
    return {
      afterCards: Boolean(lastCard.compareDocumentPosition(signOut) & Node.DOCUMENT_POSITION_FOLLOWING),
      farFromSound: !sound.parentElement!.contains(signOut),
    }
  })
  t.ok(order.afterCards, 'after every card in tab order')
  t.ok(order.farFromSound, 'not next to Sound')
  await page.locator('#screen-identity', { hasText: 'Signed in as wall-sign-out, scope screen' }).waitFor()
  t.ok(await page.locator('#approve-form').isHidden(), 'only an admin token approves screens: the form is not offered')
  await page.locator('#forget-token').click()
  await page.locator('#sign-out-confirm').waitFor({ state: 'visible' })
  await page.locator('#sign-out-no').click()
  t.ok(await page.locator('#app').isVisible(), 'Stay signed in: nothing happened')
  t.ok(await page.evaluate(() => localStorage.getItem('trackerGateway.accessToken') !== null))
  // Escape backs out too.
  await page.locator('#forget-token').click()
  await page.locator('#sign-out-confirm').waitFor({ state: 'visible' })
  await page.keyboard.press('Escape')
  await page.locator('#sign-out-confirm').waitFor({ state: 'hidden' })
  t.equal(await page.evaluate(() => document.activeElement?.id), 'forget-token', 'Escape: the question closes, the focus back on its button')
  await page.locator('#forget-token').click()
  await page.locator('#sign-out-yes').click()
  await page.locator('#login').waitFor({ state: 'visible' })
  t.equal(await page.evaluate(() => localStorage.getItem('trackerGateway.accessToken')), null, 'signed out on purpose')
  await until(async () => (await apiClient(base, wallToken)('GET', '/api/v2/accesstoken')).status === 401, 'the token revoked at the gateway', 10_000)
  t.notOk(
    gateway.services.tokens.list().some((record) => record.name === 'wall-sign-out'),
    'gone from the token list',
  )
  t.same(errors, [], 'no console errors')
})

t.test('a new screen signs in with a code approved on a signed-in screen in another browser', async (t) => {
  const fresh = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  t.teardown(() => fresh.close())
  const wall = await fresh.newPage()
  const wallErrors = watchErrors(wall)
  await wall.goto(`${base}/`)
  await wall.locator('#pairing-start').click()
  const codeLocator = wall.locator('#pairing-code')
  await wall.waitForFunction(() => /^[2-9A-Z]{4}-[2-9A-Z]{4}$/.test(document.getElementById('pairing-code')!.textContent ?? ''))
  const code = (await codeLocator.textContent())!
  await wall.screenshot({ path: path.join(artifacts, 'board-pairing-code.png') })

  const manager = await openBoard(t, browser, base, token, { width: 390, height: 844 })
  await manager.page.locator('a[href="#screen"]').click()
  await manager.page.locator('#approve-code').fill(code.toLowerCase())
  await manager.page.locator('#approve-name').fill('pass-left')
  await manager.page.locator('#approve-form button[type="submit"]').click()
  await manager.page.locator('#approve-result', { hasText: 'signed in as pass-left (scope screen)' }).waitFor()

  await wall.locator('body[data-connection="live"]').waitFor()
  const wallToken = await wall.evaluate(() => localStorage.getItem('trackerGateway.accessToken'))
  t.match(wallToken, /^[0-9a-f]{48}$/)
  t.not(wallToken, token, 'its own token, not the manager’s')
  t.ok(
    gateway.services.tokens.list().some((record) => record.name === 'pass-left' && record.scope === 'screen'),
    'named as the manager chose, scope screen by default',
  )
  await wall.locator('a[href="#screen"]').click()
  await wall.locator('#screen-identity', { hasText: 'Signed in as pass-left, scope screen' }).waitFor()
  t.same([...wallErrors, ...manager.errors], [], 'no console errors')
})

t.test('axe-core: no serious or critical finding on the pass, tablet and phone layouts', async (t) => {
  await rush(30)
  await api('POST', '/api/v2/activeorders/14/page', { tracking: true })
  await api('POST', '/api/v2/simulator/clear', { tracker: 1 })
  for (const viewport of [
    { width: 1920, height: 1080 },
    { width: 1024, height: 768 },
    { width: 390, height: 844 },
  ]) {
    const { page } = await openBoard(t, browser, base, token, viewport)
    await settled(page, 29)
    const found = await axeFindings(page)
    const serious = found.filter(isSerious)
    t.same(serious, [], `${viewport.width}x${viewport.height}: no serious or critical finding`)
    if (found.length) t.comment(`${viewport.width}: minor findings ${JSON.stringify(found)}`)
    const heading = await page.locator('h1').count()
    t.equal(heading, 1, 'one top-level heading')
    if (viewport.width === 390) {
      await page.locator('.stats').focus()
      t.equal(
        await page.evaluate(() => document.activeElement?.classList.contains('stats')),
        true,
        'the figures row takes the keyboard focus (it scrolls sideways)',
      )
    }
  }
})
