import t from 'tap'
import { ControlServer } from '../../../runtime/control/control.ts'
import { describeStatus, registerSimCommands, simCliCommand } from '../../../runtime/cli/sim-commands.ts'
import type { Test } from 'tap'
import { testGateway } from '../../helpers/gateway.ts'

/** A test gateway with the sim.* commands on a control socket in a fresh dir. */
async function simControl(t: Test) {
  const gw = await testGateway()
  const control = new ControlServer(gw.logs.log)
  registerSimCommands(control, gw.services)
  const dir = t.testdir()
  await control.listen(dir)
  t.teardown(() => control.close())
  return { gw, dir, control }
}

t.test('sim.* control commands and the `gateway sim` CLI drive the restaurant through the socket', async (t) => {
  const { gw, dir, control } = await simControl(t)

  t.match(await simCliCommand(['start', '7'], { 'to-go': true }, dir), /^tracker 7 started on the to-go starter: order 7 started \(TO_GO\)$/)
  t.match(await simCliCommand(['place', '7', '3'], {}, dir), /order 7 located at table 3/)
  t.match(gw.services.orders.get({ name: 7 }), { state: 'located', locationName: 3, orderType: 'TO_GO' })
  const status = await simCliCommand(['status'], {}, dir)
  t.match(status, /simulated radio up; tables 1-30; starters dine-in, to-go; clearers pass/)
  t.match(status, /# {2}7 00:0d:6f:00:00:00:00:07 {2}table 3 +order 7 located/)
  t.equal(await simCliCommand(['clear', '7'], {}, dir), 'tracker 7 cleared: order 7 cleared at table 3 (TO_GO)')
  t.equal(await simCliCommand(['clear', '7'], {}, dir), 'tracker 7 cleared: no active order', 'a second clear finds none')
  t.equal(gw.services.orders.list().length, 0)

  await t.rejects(simCliCommand(['start', 'x'], {}, dir), /tracker must be a positive integer/)
  await t.rejects(simCliCommand(['start'], {}, dir), { message: /^tracker missing; usage: gateway sim start <tracker>/ })
  await t.rejects(simCliCommand(['place', '3'], {}, dir), { message: /^table missing; usage: gateway sim/ })
  await t.rejects(simCliCommand(['start', '500'], {}, dir), /no tracker 500 in the simulated restaurant/)
  await t.rejects(simCliCommand(['dance'], {}, dir), /usage: gateway sim/)
  await simCliCommand(['start', '1'], {}, dir)
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

t.test('`gateway sim rush` starts a lunch service, refuses a second one, and stops on command', async (t) => {
  const { gw, dir } = await simControl(t)
  t.match(
    await simCliCommand(['rush'], { pace: '10', minutes: '2' }, dir),
    /^lunch rush running at pace 10; guests arrive until .* \(1 guests, .*\); stop it with: gateway sim rush stop$/,
  )
  await gw.services.orders.idle()
  t.equal(gw.services.orders.list().length, 1, 'the first guest has a tracker')
  await t.rejects(simCliCommand(['rush'], {}, dir), /a rush is already running/)
  await t.rejects(simCliCommand(['rush'], { pace: 'fast' }, dir), /--pace must be a positive number, got "fast"/)
  await t.rejects(simCliCommand(['rush', 'now'], {}, dir), /usage: gateway sim/)
  t.match(await simCliCommand(['rush', 'stop'], {}, dir), /^lunch rush stopped \(1 guests/)
  await gw.clock.advance(600_000)
  t.equal(gw.services.orders.list().length, 1, 'nothing moves after the stop')
})

t.test('start --demo plays one lunch service after another', async (t) => {
  const { startDemo } = await import('../../../runtime/cli/sim-commands.ts')
  const gw = await testGateway()
  t.match(await startDemo(gw.services), /^lunch rush running at pace 1/)
  gw.services.rush.stop()
  await gw.clock.advance(60_000)
  await gw.services.orders.idle()
  t.equal(gw.services.rush.status().state, 'running', 'a stopped service is followed by the next')
  gw.services.rush.stop()

  const { SimulatorService } = await import('../../../lib/orders/simulator.ts')
  ;(gw.services as { simulator: unknown }).simulator = new SimulatorService({ radio: { kind: 'zigbee' } as never, orders: gw.services.orders })
  await t.rejects(startDemo(gw.services), /--demo needs the simulated radio/)
})
