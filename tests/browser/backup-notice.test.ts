// The board's header warns when the box's last backup failed (web/board/backup-notice.js),
// in real Chromium against a real gateway; a working backup shows nothing.
import path from 'node:path'
import t from 'tap'
import { sendControl } from '../../runtime/control/control.ts'
import { firstToken, gatewayOn, launchBrowser, openBoard } from '../helpers/browser.ts'

const browser = await launchBrowser(t)

t.test('a failed backup shows as a warning in the header; a good one hides it', async (t) => {
  const dataDir = t.testdir()
  const gateway = await gatewayOn(dataDir)
  t.teardown(() => gateway.stop())
  const base = `http://127.0.0.1:${gateway.port}`
  const token = await firstToken(gateway, dataDir)
  await t.rejects(sendControl(dataDir, 'backup.run', { to: path.join(dataDir, 'no-such-dir', 'x.tar') }))
  const { page } = await openBoard(t, browser, base, token)
  const notice = page.locator('#backup-notice')
  await notice.waitFor({ state: 'visible' })
  t.equal(await notice.textContent(), 'backup failed')
  t.match(
    await notice.getAttribute('title'),
    /The last backup failed: the backup directory .*no-such-dir does not exist \(is the stick or share mounted\?\)\. no good backup yet/,
  )

  await sendControl(dataDir, 'backup.run', { to: path.join(dataDir, 'good.tar') }, 60_000)
  await page.reload()
  await page.locator('.board, #board, main').first().waitFor()
  await page.waitForFunction(() => (document.querySelector('#backup-notice') as HTMLElement | null)?.hidden === true)
  t.pass('hidden once a backup worked')
})
