import t from 'tap'
import { ControlServer } from '../../runtime/control.ts'
import { describeStatus, registerSimCommands, simCliCommand } from '../../runtime/sim-commands.ts'
import { testGateway } from '../helpers/gateway.ts'

t.test('sim.* control commands and the `gateway sim` CLI drive the restaurant through the socket', async (t) => {
  const gw = await testGateway()
  const control = new ControlServer(gw.logs.log)
  registerSimCommands(control, gw.services)
  const dir = t.testdir()
  await control.listen(dir)
  t.teardown(() => control.close())

  t.match(await simCliCommand(['start', '7'], { 'to-go': true }, dir), /^tracker 7 started on the to-go starter: order 7 started \(TO_GO\)$/)
  t.match(await simCliCommand(['place', '7', '3'], {}, dir), /order 7 located at table 3/)
  t.match(gw.services.orders.get({ name: 7 }), { state: 'located', locationName: 3, orderType: 'TO_GO' })
  const status = await simCliCommand(['status'], {}, dir)
  t.match(status, /simulated radio up; tables 1-30; starters dine-in, to-go; clearers pass/)
  t.match(status, /# {2}7 00:0d:6f:00:00:00:00:07 {2}table 3 +order 7 located/)
  t.match(await simCliCommand(['clear', '7'], {}, dir), /tracker 7 cleared: no active order/)
  t.equal(gw.services.orders.list().length, 0)

  await t.rejects(simCliCommand(['start', 'x'], {}, dir), /tracker must be a positive integer/)
  await t.rejects(simCliCommand(['start', '500'], {}, dir), /no tracker 500 in the simulated restaurant/)
  await t.rejects(simCliCommand(['dance'], {}, dir), /usage: gateway sim/)
  const reply = await control.handle({ id: 1, command: 'sim.place', args: { tracker: 1, table: 99 } })
  t.match(reply, { ok: false, error: /no table 99/ })
})

t.test('describeStatus marks buzzing trackers', async (t) => {
  const gw = await testGateway()
  gw.radio.startTracker(2)
  await gw.services.orders.idle()
  await gw.services.orders.page({ name: 2 }, true)
  t.match(describeStatus(gw.services.simulator.status()), /# {2}2 .*with guest \(ON_PREMISE\) +order 2 started +BUZZING/)
})
