import t from 'tap'
import { compareVersions } from '../../../lib/release/version.ts'

t.test('versions compare by number, a pre-release before its release', async (t) => {
  t.equal(compareVersions('0.10.0', '0.9.9'), 1)
  t.equal(compareVersions('1.0.0', '1.0.0'), 0)
  t.equal(compareVersions('1.0.0', '1.0.1'), -1)
  t.equal(compareVersions('1.0.0-rc.1', '1.0.0'), -1)
  t.equal(compareVersions('1.0.0', '1.0.0-rc.1'), 1)
  t.equal(compareVersions('1.0.0-rc.2', '1.0.0-rc.1'), 1)
  t.equal(compareVersions('1.0.0-rc.1', '1.0.0-rc.1'), 0)
  t.equal(compareVersions('1.0.0-rc.1', '1.0.0-rc.2'), -1)
})
