// Radio upkeep (lib/radio/zigbee-upkeep.ts) on the real herdsman Controller over the fake
// coordinator: the device list with failed interviews first, an interview run again, a device
// removed (and forgotten with force when it does not answer), and the network map from the
// coordinator's and routers' neighbour tables.
import t from 'tap'
import { coordinatorIeee, type FakeDevice } from '../../helpers/zigbee-fake-adapter.ts'
import { configuredMessage, joinAndSettle, logged, repeater, setup, starter, tracker } from '../../helpers/zigbee-radio.ts'
import { until } from '../../helpers/until.ts'
import { ieeeToAddress } from '../../../lib/radio/zigbee-profile.ts'
import { deviceNotFoundName } from '../../../lib/radio/upkeep.ts'

const trackerAddress = ieeeToAddress(tracker.ieee)
const repeaterAddress = ieeeToAddress(repeater.ieee)
const secondRepeater: FakeDevice = { ...repeater, ieee: '0x00124b0099887766', nwk: 0x6666 }
const failedMessage = 'zigbee interview failed; the device is interviewed again when it rejoins'

t.test('the device list puts failed interviews first; an interview run again configures the device', async (t) => {
  const context = await setup(t)
  await context.radio.start()
  const adapter = context.fake.current!
  await joinAndSettle(context, adapter, repeater)
  adapter.interviewFailing.add(tracker.ieee)
  adapter.join(tracker)
  await until(() => logged(context.logs, tracker, failedMessage), 'the failed interview')
  const listed = await context.radio.devices()
  t.same(
    listed.map((device) => [device.address, device.interview]),
    [
      [trackerAddress, 'failed'],
      [repeaterAddress, 'successful'],
    ],
  )
  t.match(listed[1], { type: 'Router', role: 'repeater', model: 'REPEATER-2', manufacturer: 'Acme', networkAddress: repeater.nwk })
  t.match(listed[0], { type: 'Unknown', role: null })

  const again = await context.radio.interview(trackerAddress)
  t.equal(again.device.interview, 'failed', 'still failing: an answer, not an exception')
  t.type(again.error, 'string')

  adapter.interviewFailing.delete(tracker.ieee)
  const fixed = await context.radio.interview(trackerAddress)
  t.same(fixed.error, null)
  t.match(fixed.device, { address: trackerAddress, interview: 'successful', role: 'tracker', type: 'EndDevice' })
  await until(() => logged(context.logs, tracker, configuredMessage), 'the tracker configured as after a join')
  t.ok(adapter.binds.includes(`${tracker.ieee} 0xfc00 -> ${coordinatorIeee}/1`))
  await t.resolves(context.radio.page(trackerAddress, 10), 'and it can be paged')
})

t.test('remove: the device is told to leave and forgotten; one that does not answer only with force', async (t) => {
  const context = await setup(t)
  await context.radio.start()
  const adapter = context.fake.current!
  await joinAndSettle(context, adapter, repeater)
  await joinAndSettle(context, adapter, starter)
  t.same(await context.radio.remove(repeaterAddress, false), { left: true })
  t.same(adapter.leaves, [repeater.ieee])
  t.same(
    context.events.deviceLeft.map((event) => event.address),
    [repeaterAddress],
  )
  t.notOk((await context.radio.devices()).some((device) => device.address === repeaterAddress))

  adapter.unreachable.add(starter.ieee)
  const starterAddress = ieeeToAddress(starter.ieee)
  await t.rejects(context.radio.remove(starterAddress, false), /did not acknowledge the leave request .* remove it with force to forget it anyway/)
  t.ok(
    (await context.radio.devices()).some((device) => device.address === starterAddress),
    'still known',
  )
  t.same(await context.radio.remove(starterAddress, true), { left: false })
  t.same(await context.radio.devices(), [])
  t.equal(context.events.deviceLeft.length, 2)
})

t.test('an address the network does not know, and a radio that is down', async (t) => {
  const context = await setup(t)
  await context.radio.start()
  const missing = context.radio.interview('00:12:4b:00:00:00:00:01')
  await t.rejects(missing, { name: deviceNotFoundName, message: 'no zigbee device 00:12:4b:00:00:00:00:01' })
  await t.rejects(context.radio.remove(ieeeToAddress(coordinatorIeee), true), { name: deviceNotFoundName }, 'the coordinator is not a device to remove')
  await context.radio.stop()
  await t.rejects(context.radio.devices(), /zigbee radio is down/)
  await t.rejects(context.radio.networkMap(), /zigbee radio is down/)
})

t.test("the network map: each router's neighbours with link quality; a router that does not answer is listed as such", async (t) => {
  const context = await setup(t)
  await context.radio.start()
  const adapter = context.fake.current!
  await joinAndSettle(context, adapter, repeater)
  await joinAndSettle(context, adapter, secondRepeater)
  await joinAndSettle(context, adapter, tracker)
  const coordinator = { ieee: coordinatorIeee, nwk: 0, deviceType: 0, depth: 0 }
  const stranger = { ieee: '0x00124b00cafe0001', nwk: 0x2222, deviceType: 2, lqi: 40, relationship: 1, depth: 2 }
  adapter.neighbours.set(0, [
    { ieee: repeater.ieee, nwk: repeater.nwk, deviceType: 1, lqi: 210, relationship: 1, depth: 1 },
    { ieee: secondRepeater.ieee, nwk: secondRepeater.nwk, deviceType: 1, lqi: 35, relationship: 2, depth: 1 },
    // An entry whose address the coordinator does not know: left out.
    { ieee: '0xffffffffffffffff', nwk: 0x3333, deviceType: 1, lqi: 10, relationship: 3, depth: 1 },
  ])
  adapter.neighbours.set(repeater.nwk, [
    { ...coordinator, lqi: 200, relationship: 0 },
    { ieee: tracker.ieee, nwk: tracker.nwk, deviceType: 2, lqi: 120, relationship: 1, depth: 2 },
    stranger,
  ])
  adapter.unreachable.add(secondRepeater.ieee)
  const map = await context.radio.networkMap()
  const coordinatorAddress = ieeeToAddress(coordinatorIeee)
  t.same(
    map.links.map(({ from, to, linkQuality, relationship }) => [from, to, linkQuality, relationship]),
    [
      [coordinatorAddress, repeaterAddress, 210, 'child'],
      [coordinatorAddress, ieeeToAddress(secondRepeater.ieee), 35, 'sibling'],
      [repeaterAddress, coordinatorAddress, 200, 'parent'],
      [repeaterAddress, trackerAddress, 120, 'child'],
      [repeaterAddress, ieeeToAddress(stranger.ieee), 40, 'child'],
    ],
    'three neighbour-table answers read whole (two entries a response)',
  )
  t.same(
    map.unanswered.map((entry) => entry.address),
    [ieeeToAddress(secondRepeater.ieee)],
  )
  t.match(map.unanswered[0].error, /no answer/)
  t.match(
    map.nodes.find((node) => node.address === coordinatorAddress),
    { type: 'Coordinator' },
  )
  t.match(
    map.nodes.find((node) => node.address === trackerAddress),
    { type: 'EndDevice', role: 'tracker' },
  )
  t.match(
    map.nodes.find((node) => node.address === ieeeToAddress(stranger.ieee)),
    { type: 'EndDevice', role: null, model: null },
    'a device only a router knows is shown',
  )
  t.equal(map.at, context.clock.now())
})
