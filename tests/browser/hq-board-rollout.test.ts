// The chain board shows each site's version and where it is in a rollout (issue 46), live.
import t from 'tap'
import { SimulatedSite } from '../../bench/hq-sites.ts'
import { startRollout } from '../../lib/hq/rollouts.ts'
import { launchBrowser, watchErrors } from '../helpers/browser.ts'
import { startPostgres } from '../helpers/postgres.ts'
import { prefix, publishAll, publisher } from '../lib/hq/fixtures.ts'
import { startChain } from '../runtime/hq/fixtures.ts'

const pg = await startPostgres({ fast: true })
t.teardown(() => pg.destroy())
const browser = await launchBrowser(t)

t.test("a site's card: its version and its rollout state", async (t) => {
  const chain = await startChain(t, pg)
  const client = await publisher(chain.broker.url)
  t.teardown(() => client.endAsync(true))
  await publishAll(client, [new SimulatedSite('paris-11', { prefix }).status(true)])
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  t.teardown(() => context.close())
  const page = await context.newPage()
  const errors = watchErrors(page)
  await page.goto(chain.url(chain.a))
  await page.locator('#token').fill(chain.token)
  await page.locator('#login button[type=submit]').click()
  const card = page.locator('.card[data-site="paris-11"]')
  await card.waitFor()
  t.match(await card.textContent(), /Version0\.1\.0/)
  t.equal(await card.locator('[data-rollout]').count(), 0, 'no rollout yet')

  // A release (as if uploaded) and a rollout to the site, driven by the instance's timer.
  await chain.a.db.query(
    `INSERT INTO hq_releases (version, file, sha256, size, key_id, signature, download_secret) VALUES ('0.2.0', 'f', 'ab', 1, 'k', '{}', 's')`,
  )
  await startRollout(chain.a.db, { releaseId: 1, soakSeconds: 0, offline: 'catch-up', startedBy: 'test' })
  await chain.a.driveRollout()
  await page.locator('.card[data-site="paris-11"] [data-rollout="told"]').waitFor()
  t.equal(await card.locator('[data-rollout]').textContent(), '#1 told')
  t.same(errors, [])
})
