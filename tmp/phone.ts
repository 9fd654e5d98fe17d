import { chromium } from 'playwright-core'
import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { chromiumDep, requireExecutable } from '../tests/helpers/system-deps.ts'
import { apiClient, firstToken, gatewayOn } from '../tests/helpers/browser.ts'
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'look-'))
const gateway = await gatewayOn(dataDir, 0, { trackers: 60 })
const base = `http://127.0.0.1:${gateway.port}`
const token = await firstToken(gateway, dataDir)
const api = apiClient(base, token)
for (let n = 1; n <= 30; n++) await api('POST', '/api/v2/simulator/start', { tracker: n, toGo: n % 7 === 0 })
const browser = await chromium.launch({ executablePath: requireExecutable(chromiumDep), headless: true, args: ['--no-sandbox'] })
const context = await browser.newContext({ viewport: { width: 1024, height: 768 } })
await context.addInitScript((value) => localStorage.setItem('trackerGateway.accessToken', value), token)
const page = await context.newPage()
await page.goto(base)
await page.locator('body[data-connection="live"]').waitFor()
await page.waitForTimeout(300)
await page.setViewportSize({ width: 390, height: 844 })
await page.waitForTimeout(300)
console.log(await page.evaluate(() => ({ cols: document.getElementById('cards')!.style.gridTemplateColumns, sw: document.documentElement.scrollWidth, wide: [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > 392).slice(0, 8).map((e) => e.tagName + '.' + e.className + '#' + e.id + ' ' + Math.round(e.getBoundingClientRect().right)) })))
await browser.close()
await gateway.stop()
