// `gateway upgrade`'s command line: one of FILE|URL, --rollback, --recover; numbers of
// seconds for the health check; on a machine without an installed layout it says so.
import path from 'node:path'
import t from 'tap'
import { runCli } from '../../helpers/process.ts'

t.test('usage errors, bad seconds, and no installed layout', async (t) => {
  const dir = t.testdir({})
  const env = { GATEWAY_INSTALL_ROOT: dir, GATEWAY_DATA_DIR: path.join(dir, 'data') }
  const none = await runCli(['upgrade'], env)
  t.equal(none.code, 2)
  t.match(none.stderr, /usage:\n {2}upgrade FILE\|URL/)
  const both = await runCli(['upgrade', 'x.tar.gz', '--rollback'], env)
  t.equal(both.code, 2)
  const seconds = await runCli(['upgrade', 'x.tar.gz', '--health-timeout', 'soon'], env)
  t.equal(seconds.code, 2)
  t.match(seconds.stderr, /--health-timeout: "soon" is not a number of seconds/)
  const notInstalled = await runCli(['upgrade', 'x.tar.gz'], env)
  t.equal(notInstalled.code, 1)
  t.match(notInstalled.stderr, /opt\/tracker-gateway-releases does not exist: install with deploy\/install.sh first/)
  const recover = await runCli(['upgrade', '--recover'], env)
  t.equal(recover.code, 0)
  t.match(recover.stdout, 'start-up check: no half-done upgrade')
})
