// Two upgrades never run at once, and the start-up check leaves a running one alone.
import path from 'node:path'
import t from 'tap'
import { lockUpgrades } from '../../../runtime/upgrade/lock.ts'
import { installLayout } from '../../../runtime/upgrade/layout.ts'
import { recover } from '../../../runtime/upgrade/upgrade.ts'
import type { ServiceManager } from '../../../runtime/upgrade/service-manager.ts'

t.test('a second lock is refused while the first is held, taken once it is released', async (t) => {
  const dir = t.testdir({ 'opt/tracker-gateway-releases': {} })
  const layout = installLayout(dir)
  const first = lockUpgrades(layout.lock)
  t.throws(() => lockUpgrades(layout.lock), { name: 'UpgradeLockedError', message: /another upgrade .* is running/ })
  const untouched: ServiceManager = {
    start: () => t.fail('started') as never,
    stop: () => t.fail('stopped') as never,
    restart: () => t.fail('restarted') as never,
    state: () => t.fail('asked') as never,
  }
  const ctx = { layout, dataDir: path.join(dir, 'data'), service: untouched, say: () => {}, healthLimitMs: 1000, stableMs: 0 }
  t.equal(await recover(ctx), 'an upgrade is running: left to it')
  first.release()
  lockUpgrades(layout.lock).release()
  t.equal(await recover(ctx), '', 'nothing half done: nothing to say')
})
