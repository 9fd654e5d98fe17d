// What the radio does with devices after they join (real herdsman Controller, fake
// coordinator): binding and reporting, who may join, leaving, failed interviews, the
// manufacturer code of the tracker cluster, and availability of the always-listening ones.
import t from 'tap'
import { Zcl } from 'zigbee-herdsman'
import { trackerCluster } from '../../../lib/radio/zigbee-profile.ts'
import { coordinatorIeee, type FakeDevice } from '../../helpers/zigbee-fake-adapter.ts'
import { configuredMessage, custom, joinAndSettle, logged, repeater, setup, starter, tracker } from '../../helpers/zigbee-radio.ts'
import { until } from '../../helpers/until.ts'

const trackerAddress = '00:12:4b:00:aa:bb:cc:dd'
const sensor: FakeDevice = {
  ieee: '0x00124b00deadbeef',
  nwk: 0x7777,
  type: 'EndDevice',
  inClusters: [0x0000, 0x0001, 0x0003, 0x0402],
  basic: { modelId: 'TEMPERATURE-SENSOR', manufacturerName: 'Other', powerSource: 3, zclVersion: 8 },
}

/** A running radio with a tracker, a starter unit and a repeater joined and settled. */
async function oneOfEachJoined(t: Parameters<typeof setup>[0]) {
  const context = await setup(t)
  await context.radio.start()
  const adapter = context.fake.current!
  await joinAndSettle(context, adapter, tracker)
  await joinAndSettle(context, adapter, starter)
  await joinAndSettle(context, adapter, repeater)
  return { context, adapter }
}

t.test('after its interview a tracker is bound to the coordinator and its reports configured; a unit is bound; a repeater is left alone', async (t) => {
  const { context, adapter } = await oneOfEachJoined(t)
  t.same(adapter.binds, [
    `${tracker.ieee} 0xfc00 -> ${coordinatorIeee}/1`,
    `${tracker.ieee} 0x0001 -> ${coordinatorIeee}/1`,
    `${starter.ieee} 0xfc00 -> ${coordinatorIeee}/1`,
  ])
  const configured = adapter.frames.filter((frame) => frame.command.name === 'configReport')
  t.equal(configured.length, 2, 'reporting configured on the tracker only')
  t.equal(configured[0].cluster.ID, 0xfc00)
  t.equal(configured[0].header.manufacturerCode, 0xfff1, 'trkTracker frames carry the manufacturer code')
  t.match(configured[0].payload, [{ attrId: 0x0000, dataType: Zcl.DataType.UINT16, minRepIntval: 1, maxRepIntval: 3600, repChange: 1 }])
  t.equal(configured[1].cluster.name, 'genPowerCfg')
  t.match(configured[1].payload, [{ attrId: 0x0021, dataType: Zcl.DataType.UINT8, minRepIntval: 3600, maxRepIntval: 21_600, repChange: 2 }])

  await context.radio.stop()
  adapter.binds.length = 0
  await context.radio.start()
  context.fake.current!.sendCommand(tracker, 'trkTracker', 'located', { tableId: 3 }, custom)
  await until(() => context.events.trackerLocated.length === 1, 'located')
  t.same(context.fake.current!.binds, [], 'herdsman remembers the configuration across restarts: nothing is sent again')
})

t.test('a device not of this profile is removed from the network, and refused when it tries again', async (t) => {
  const context = await setup(t)
  await context.radio.start()
  const adapter = context.fake.current!
  adapter.join(sensor)
  await until(() => logged(context.logs, sensor, 'zigbee device not of this profile: removed from the network'), 'the removal')
  t.same(adapter.leaves, [sensor.ieee])
  t.same(
    context.events.deviceLeft.map((e) => e.address),
    ['00:12:4b:00:de:ad:be:ef'],
  )
  await t.rejects(context.radio.page('00:12:4b:00:de:ad:be:ef', 10), /no zigbee device/, "gone from herdsman's database")
  t.same(context.events.repeaterJoined, [])

  const reads = adapter.sent.length
  adapter.join(sensor)
  await until(() => adapter.leaves.length === 2, 'the second leave request')
  t.ok(logged(context.logs, sensor, 'zigbee device not of this profile refused'))
  t.equal(adapter.sent.length, reads, 'not interviewed again')
})

t.test('an end device without the tracker cluster is not a tracker', async (t) => {
  const context = await setup(t)
  await context.radio.start()
  const adapter = context.fake.current!
  adapter.join(sensor)
  adapter.report(sensor, 'genPowerCfg', [{ attrId: 0x0021, dataType: Zcl.DataType.UINT8, attrData: 150 }])
  await until(() => adapter.leaves.length === 1, 'the removal')
  t.same(context.events.trackerSeen, [], 'no sign of life reported for it')
})

t.test('a device that leaves is reported; a failed interview is run again when the device rejoins', async (t) => {
  const context = await setup(t)
  await context.radio.start()
  const adapter = context.fake.current!
  await joinAndSettle(context, adapter, repeater)
  adapter.leave(repeater)
  await until(() => context.events.deviceLeft.length === 1, 'deviceLeft')
  t.match(context.events.deviceLeft[0], { address: '00:12:4b:00:11:22:33:44', at: context.clock.now() })
  t.ok(logged(context.logs, repeater, 'zigbee device left the network'))
  const announced = context.events.repeaterJoined.length
  await context.radio.refreshRepeaters()
  t.equal(context.events.repeaterJoined.length, announced, 'no longer pinged nor announced')

  adapter.interviewFailing.add(tracker.ieee)
  adapter.join(tracker)
  await until(() => logged(context.logs, tracker, 'zigbee interview failed; the device is interviewed again when it rejoins'), 'the failure')
  await t.rejects(context.radio.page(trackerAddress, 10))
  adapter.interviewFailing.delete(tracker.ieee)
  await joinAndSettle(context, adapter, tracker)
  await t.resolves(context.radio.page(trackerAddress, 10), 'a tracker after its second interview')
})

t.test('a configuration that fails is tried again when the tracker next speaks, at most every 10 minutes', async (t) => {
  const context = await setup(t)
  await context.radio.start()
  const adapter = context.fake.current!
  adapter.failBinds = true
  adapter.join(tracker)
  await until(() => logged(context.logs, tracker, 'configuring a zigbee device failed; tried again when it next speaks'), 'the failure')
  adapter.failBinds = false
  adapter.report(tracker, 'genPowerCfg', [{ attrId: 0x0021, dataType: Zcl.DataType.UINT8, attrData: 150 }])
  await until(() => context.events.trackerSeen.length === 1, 'the report')
  t.same(adapter.binds, [], 'not within 10 minutes of the last attempt')
  await context.clock.advance(10 * 60_000)
  adapter.report(tracker, 'genPowerCfg', [{ attrId: 0x0021, dataType: Zcl.DataType.UINT8, attrData: 150 }])
  await until(() => logged(context.logs, tracker, configuredMessage), 'the configuration')
  t.equal(adapter.binds.length, 2)
})

t.test('a device left unconfigured by an earlier run is configured when it next speaks', async (t) => {
  const context = await setup(t)
  await context.radio.start()
  context.fake.current!.failBinds = true
  context.fake.current!.join(tracker)
  await until(() => logged(context.logs, tracker, 'configuring a zigbee device failed; tried again when it next speaks'), 'the failure')
  await context.radio.stop()
  await context.radio.start()
  const adapter = context.fake.current!
  adapter.report(tracker, 'genPowerCfg', [{ attrId: 0x0021, dataType: Zcl.DataType.UINT8, attrData: 150 }])
  await until(() => logged(context.logs, tracker, configuredMessage), 'the configuration')
  t.equal(adapter.binds.length, 2)
})

t.test(
  'a known tracker or unit that joins again (a factory reset empties its binding table) is bound and configured again; a repeater is left alone',
  async (t) => {
    const { context, adapter } = await oneOfEachJoined(t)
    adapter.binds.length = 0
    adapter.frames.length = 0
    const sentBefore = adapter.sent.length

    // herdsman's database still lists the bindings: only the rejoin tells that they may be gone.
    adapter.join(tracker)
    adapter.join(starter)
    adapter.join(repeater)
    await until(() => adapter.binds.length === 3 && adapter.frames.filter((frame) => frame.command.name === 'configReport').length === 2, 'configured again')
    t.same([...adapter.binds].sort(), [
      `${starter.ieee} 0xfc00 -> ${coordinatorIeee}/1`,
      `${tracker.ieee} 0x0001 -> ${coordinatorIeee}/1`,
      `${tracker.ieee} 0xfc00 -> ${coordinatorIeee}/1`,
    ])
    t.ok(logged(context.logs, tracker, 'known zigbee device joined again; configuring it again'))
    t.notOk(logged(context.logs, repeater, 'known zigbee device joined again; configuring it again'), 'nothing to configure on a repeater')
    t.notOk(
      adapter.sent.slice(sentBefore).some((frame) => frame.cluster === 'genBasic'),
      'not interviewed again',
    )
  },
)

t.test('frames on 0xFC00 count only with the configured manufacturer code (radio.manufacturerCode)', async (t) => {
  const context = await setup(t, { radio: { manufacturerCode: 0x1234 } })
  await context.radio.start()
  const adapter = context.fake.current!
  const ours = { ...tracker, manufacturerCode: 0x1234 }
  const foreign = { ...starter }
  await joinAndSettle(context, adapter, ours)
  await joinAndSettle(context, adapter, foreign)
  const configured = adapter.frames.find((frame) => frame.command.name === 'configReport' && frame.cluster.ID === 0xfc00)
  t.equal(configured?.header.manufacturerCode, 0x1234, 'configured with our code')

  adapter.sendCommand(foreign, 'trkTracker', 'started', { trackerIeee: tracker.ieee, trackerNumber: 42, orderType: 1 }, custom)
  adapter.sendCommand(ours, 'trkTracker', 'located', { tableId: 8 }, { trkTracker: trackerCluster(0x1234) } as never)
  await until(() => context.events.trackerLocated.length === 1, 'located')
  t.same(context.events.trackerStarted, [], "another vendor's 0xFC00 frame is not a start")
  t.equal(context.events.trackerLocated[0].table, 8)
})

t.test('routers not heard from are pinged; one that does not answer is unavailable until heard again; trackers are never pinged', async (t) => {
  const context = await setup(t, { radio: { pingIntervalMs: 60_000 } })
  const { clock, radio } = context
  await radio.start()
  const adapter = context.fake.current!
  await joinAndSettle(context, adapter, tracker)
  await joinAndSettle(context, adapter, starter)
  await joinAndSettle(context, adapter, repeater)
  adapter.sent.length = 0
  adapter.unreachable.add(starter.ieee)
  const announced = context.events.repeaterJoined.length
  await clock.advance(60_000)
  await until(() => logged(context.logs, starter, 'zigbee device did not answer a ping: unavailable'), 'the failed ping')
  await until(() => context.events.repeaterJoined.length === announced + 1, 'the repeater answered')
  t.same(adapter.sent.map((f) => `${f.ieee} ${f.cluster} ${f.command}`).sort(), [`${repeater.ieee} genBasic read`], 'the tracker is not pinged')
  t.match((await radio.info()).unavailable, [{ address: '00:12:4b:00:55:66:77:88', role: 'unit' }])
  t.equal((await radio.info()).unavailable!.length, 1)

  adapter.unreachable.delete(starter.ieee)
  adapter.sendCommand(starter, 'trkTracker', 'cleared', { trackerIeee: tracker.ieee, trackerNumber: 42 }, custom)
  await until(() => context.events.trackerCleared.length === 1, 'a frame from the unit')
  t.same((await radio.info()).unavailable, [], 'available again once heard from')
  t.ok(logged(context.logs, starter, 'zigbee device available again'))
})
