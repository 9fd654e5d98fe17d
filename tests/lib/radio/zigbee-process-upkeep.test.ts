// Radio upkeep across the radio process (lib/radio/zigbee-process.ts → zigbee-child.ts): the
// calls travel over IPC to herdsman's real Controller over the fake coordinator loaded into
// the radio process by the test, and so does the coordinator's description.
import t from 'tap'
import { ManualClock } from '../../helpers/manual-clock.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { ZigbeeProcessRadio } from '../../../lib/radio/zigbee-process.ts'
import { deviceNotFoundName } from '../../../lib/radio/upkeep.ts'
import { FakeRemote } from '../../helpers/zigbee-fake-remote.ts'
import { repeater, TestChannel } from '../../helpers/zigbee-radio.ts'
import { until } from '../../helpers/until.ts'
import { ieeeToAddress } from '../../../lib/radio/zigbee-profile.ts'

const processMs = 60_000

t.test('devices, map, interview and removal through the radio process; the coordinator in its info', async (t) => {
  const remote = await FakeRemote.open(t)
  const radio = new ZigbeeProcessRadio({
    dataDir: t.testdir(),
    clock: new ManualClock(),
    channel: new TestChannel(),
    log: memoryLogger('fatal').log,
    adapter: 'zstack',
    ...remote.processOptions,
  })
  t.teardown(() => radio.stop())
  await t.rejects(radio.devices(), /zigbee radio is down/, 'before it is up')
  await radio.start()
  await until(async () => (await radio.info()).up, 'the radio up', processMs)
  t.match((await radio.info()).coordinator, {
    adapter: 'zstack',
    type: 'fake',
    firmware: null,
    eui64: '00:12:4b:00:01:02:03:04',
    start: 'reset',
    backup: { supported: false },
  })

  remote.current!.join(repeater)
  const address = ieeeToAddress(repeater.ieee)
  await until(
    async () => (await radio.devices()).some((device) => device.address === address && device.interview === 'successful'),
    'the repeater interviewed',
    processMs,
  )
  const map = await radio.networkMap()
  t.same(map.links, [], 'no neighbour tables in this fake: nothing to link')
  t.same(map.unanswered, [])
  t.equal(map.nodes.length, 2, 'the coordinator and the repeater')
  t.match(await radio.interview(address), { device: { address, interview: 'successful', role: 'repeater' }, error: null })
  await t.rejects(radio.interview('00:12:4b:00:00:00:00:01'), { name: deviceNotFoundName }, 'the error keeps its name across the process boundary')
  t.same(await radio.remove(address, false), { left: true })
  t.same(await radio.devices(), [])
})
