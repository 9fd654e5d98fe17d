// axe-core on the board's other views with a rush on: the simulator panel open and the floor
// being arranged (a serious finding each before: a scrolling tracker list the keyboard could
// not reach, dark text on the amber floor chips, tiles named unlike what they show).
import t from 'tap'
import { axeFindings, isSerious } from '../helpers/axe.ts'
import { boardGateway, launchBrowser, openBoard } from '../helpers/browser.ts'

const browser = await launchBrowser(t)
const { clock, base, token, api } = await boardGateway(t)

t.test('the simulator panel and the floor being arranged: no serious or critical finding', async (t) => {
  // Ages around the 5-minute target, so the floor shows every colour; 30 trackers out (the list scrolls).
  for (let n = 1; n <= 30; n++) {
    clock.offset = -(31 - n) * 25_000
    await api('POST', '/api/v2/simulator/start', { tracker: n, toGo: n % 7 === 0 })
    if (n % 7 !== 0) await api('POST', '/api/v2/simulator/place', { tracker: n, table: (n % 12) + 1 })
  }
  clock.offset = 0
  const { page, errors } = await openBoard(t, browser, base, token, { width: 1920, height: 1080 })
  await page.locator('#sim-toggle').click()
  await page.locator('#sim-trackers li').nth(29).waitFor()
  await page.locator('.tab[data-view="floor"]').click()
  await page.locator('#floor .table-tile').first().waitFor()
  await page.locator('#floor-arrange').click()
  await page.locator('#floor-editor').waitFor()
  const found = await axeFindings(page)
  t.same(found.filter(isSerious), [], 'no serious or critical finding')
  if (found.length) t.comment(`minor findings ${JSON.stringify(found)}`)
  t.same(errors, [], 'no console errors')
})
