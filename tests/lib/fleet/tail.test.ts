import t from 'tap'
import { connect } from 'mqtt'
import { fleetConfigSchema } from '../../../lib/fleet/config.ts'
import { tailFilter, tailFleet } from '../../../lib/fleet/tail.ts'
import { makePasswordFile, startBroker } from './mosquitto.ts'
import { until } from '../../helpers/until.ts'

t.test('filters', async (t) => {
  t.equal(tailFilter('chain'), 'chain/+/#')
  t.equal(tailFilter('chain/eu', 'paris-11'), 'chain/eu/paris-11/#')
})

t.test('prints one site, or all, until aborted', async (t) => {
  const broker = await startBroker({ dir: t.testdir() })
  t.teardown(() => broker.stop())
  const config = fleetConfigSchema.parse({ brokerUrl: broker.url, topicPrefix: 'chain' })
  const tail = (site?: string) => {
    const lines: string[] = []
    const controller = new AbortController()
    const done = tailFleet({ config, site, write: (line) => lines.push(line), signal: controller.signal })
    return { lines, stop: () => (controller.abort(), done) }
  }
  const one = tail('a')
  const all = tail()
  await until(() => one.lines.length > 0 && all.lines.length > 0, 'subscribed')
  t.equal(one.lines[0], `# subscribed to chain/a/# on ${broker.url}`)
  const publisher = connect(broker.url)
  t.teardown(() => publisher.endAsync(true))
  await new Promise((resolve) => publisher.once('connect', resolve))
  await publisher.publishAsync('chain/b/events', '{"seq":1}', { qos: 1 })
  await publisher.publishAsync('chain/a/events', '{"seq":2}', { qos: 1 })
  await until(() => all.lines.length === 3 && one.lines.length === 2, 'messages')
  t.same(one.lines.slice(1), ['chain/a/events {"seq":2}'])
  t.same(all.lines.slice(1), ['chain/b/events {"seq":1}', 'chain/a/events {"seq":2}'])
  await one.stop()
  await all.stop()
})

t.test('refused credentials end the tail with a clear error; bad input is refused', async (t) => {
  const dir = t.testdir()
  const broker = await startBroker({ dir, anonymous: false, lines: [`password_file ${makePasswordFile(dir, 'hq', 'right')}`] })
  t.teardown(() => broker.stop())
  const signal = new AbortController().signal
  const write = () => {}
  await t.rejects(tailFleet({ config: fleetConfigSchema.parse({ brokerUrl: broker.url, username: 'hq', password: 'wrong' }), write, signal }), {
    message: /^auth-failed: broker refused the connection/,
  })
  await t.rejects(tailFleet({ config: fleetConfigSchema.parse({}), write, signal }), { message: /fleet\.brokerUrl is not set/ })
  await t.rejects(tailFleet({ config: fleetConfigSchema.parse({ brokerUrl: broker.url }), site: 'a/#', write, signal }), {
    message: /not a site id/,
  })
})
