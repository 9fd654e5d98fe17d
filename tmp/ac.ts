import { chromium } from 'playwright-core'
import { chromiumDep, requireExecutable } from '../tests/helpers/system-deps.ts'
const html = `<p>x</p><script>const c = new AudioContext(); window.c = c; const b = c.state; c.resume().then(() => window.resumed = true); setTimeout(() => { window.r = b + ' ' + c.state }, 300)</script>`
for (const extra of [[], ['--autoplay-policy=no-user-gesture-required'], ['--autoplay-policy=user-gesture-required']]) {
  const browser = await chromium.launch({ executablePath: requireExecutable(chromiumDep), headless: true, args: ['--no-sandbox', ...extra] })
  const page = await browser.newPage()
  await page.goto('data:text/html,' + encodeURIComponent(html))
  await page.waitForTimeout(600)
  const state = await page.evaluate(() => (window as any).r + ' resumed=' + (window as any).resumed)
  await page.click('p')
  await page.waitForTimeout(100)
  const after = await page.evaluate(() => (window as any).c.state)
  console.log(extra, state, after)
  await browser.close()
}
