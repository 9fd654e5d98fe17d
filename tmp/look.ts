import { chromium } from 'playwright-core'
import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { chromiumDep, requireExecutable } from '../tests/helpers/system-deps.ts'
import { apiClient, firstToken, gatewayOn, ShiftedClock } from '../tests/helpers/browser.ts'
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'look-'))
const clock = new ShiftedClock()
const gateway = await gatewayOn(dataDir, 0, { trackers: 60 }, clock)
const base = `http://127.0.0.1:${gateway.port}`
const token = await firstToken(gateway, dataDir)
const api = apiClient(base, token)
const N = Number(process.argv[2] ?? 40)
for (let n = 1; n <= N; n++) {
  clock.offset = -(N + 1 - n) * 13_000
  await api('POST', '/api/v2/simulator/start', { tracker: n, toGo: n % 7 === 0 })
  if (n % 7 !== 0 && n % 5 !== 0) await api('POST', '/api/v2/simulator/place', { tracker: n, table: ((n * 11) % 30) + 1 })
}
clock.offset = 0
await api('POST', '/api/v2/activeorders/14/page', { tracking: true })
const browser = await chromium.launch({ executablePath: requireExecutable(chromiumDep), headless: true, args: ['--no-sandbox'] })
for (const [w, h, dsf] of [[1920, 1080, 1], [1366, 768, 1], [1536, 864, 1.25], [1024, 768, 1], [390, 844, 1]]) {
  const context = await browser.newContext({ viewport: { width: w, height: h }, deviceScaleFactor: dsf })
  await context.addInitScript((value) => localStorage.setItem('trackerGateway.accessToken', value), token)
  const page = await context.newPage()
  page.on('console', (m) => m.type() === 'error' && console.log('console', m.text()))
  page.on('pageerror', (e) => console.log('pageerror', e.message))
  await page.goto(base)
  await page.locator('body[data-connection="live"]').waitFor()
  await page.waitForTimeout(500)
  const info = await page.evaluate(() => ({ size: document.getElementById('cards')!.dataset.size, cols: document.getElementById('cards')!.style.gridTemplateColumns, overflow: document.getElementById('overflow')!.hidden ? '' : document.getElementById('overflow')!.textContent, h: document.querySelector('.card')!.getBoundingClientRect().height, meta: getComputedStyle(document.querySelector('.card .meta')!).fontSize }))
  console.log(w, h, dsf, JSON.stringify(info))
  await page.screenshot({ path: `tmp/look-${w}.png` })
  await context.close()
}
await browser.close()
await gateway.stop()
