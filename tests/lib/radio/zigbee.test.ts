// The Zigbee radio against the REAL zigbee-herdsman Controller, with herdsman's adapter
// factory replaced by an in-process fake coordinator (tests/helpers/zigbee-fake-adapter.ts).
import { existsSync, readFileSync, realpathSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { Zcl } from 'zigbee-herdsman'
import { discoverAdapter } from 'zigbee-herdsman/dist/adapter/adapterDiscovery.js'
import { SerialPort } from 'zigbee-herdsman/dist/adapter/serialPort.js'
import { listSticks, systemSerialPath } from '../../../lib/radio/zigbee.ts'
import { herdsmanDefaultKey } from '../../../lib/radio/zigbee-network.ts'
import { custom, joinAndSettle, repeater, setup, starter, tracker } from '../../helpers/zigbee-radio.ts'
import { until } from '../../helpers/until.ts'

t.test('first start forms a network with its own key, stored in the data dir', async (t) => {
  const { fake, dataDir, radio, events } = await setup(t)
  await radio.start()
  t.same(events.status, [{ up: true }])
  const stored = JSON.parse(readFileSync(path.join(dataDir, 'zigbee', 'network.json'), 'utf8'))
  t.match(stored, { networkKey: /^[0-9a-f]{32}$/, extendedPanId: /^[0-9a-f]{16}$/, panId: Number })
  const network = (fake.current as unknown as { networkOptions: { networkKey: number[]; panID: number; channelList: number[] } }).networkOptions
  t.notSame(network.networkKey, herdsmanDefaultKey, 'never the library default key')
  t.equal(Buffer.from(network.networkKey).toString('hex'), stored.networkKey)
  t.equal(network.panID, stored.panId)
  t.same(network.channelList, [15], 'channel from the preset')
  t.match(await radio.info(), { kind: 'zigbee', up: true, eui64: '00:12:4b:00:01:02:03:04', channel: 15, panId: stored.panId })

  await radio.stop()
  t.same(events.status.at(-1), { up: false, detail: 'stopped' })
  await radio.start()
  const again = (fake.current as unknown as { networkOptions: { networkKey: number[] } }).networkOptions
  t.same(again.networkKey, network.networkKey, 'a restart keeps the same network')
})

t.test('a tracker joins, is interviewed, reports its location and is paged', async (t) => {
  const context = await setup(t)
  const { fake, clock, radio, events } = context
  await radio.start()
  const adapter = fake.current!
  await joinAndSettle(context, adapter, tracker)

  adapter.sendCommand(tracker, 'trkTracker', 'located', { tableId: 12 }, custom)
  await until(() => events.trackerLocated.length === 1, 'located')
  t.same(events.trackerLocated[0], { address: '00:12:4b:00:aa:bb:cc:dd', table: 12, at: clock.now() })
  t.match(events.trackerSeen.at(-1), { address: '00:12:4b:00:aa:bb:cc:dd', linkQuality: 180 })

  adapter.report(tracker, 'genBasic', [{ attrId: 0x0010, dataType: Zcl.DataType.CHAR_STR, attrData: '7' }])
  await until(() => events.trackerLocated.length === 2, 'locationDesc')
  t.equal(events.trackerLocated[1].table, 7, 'genBasic.locationDesc is accepted too')

  adapter.report(tracker, 'trkTracker', [{ attrId: 0x0000, dataType: Zcl.DataType.UINT16, attrData: 9 }], custom)
  await until(() => events.trackerLocated.length === 3, 'tableId report')
  t.equal(events.trackerLocated[2].table, 9, 'a tableId attribute report locates too')

  adapter.report(tracker, 'genPowerCfg', [{ attrId: 0x0021, dataType: Zcl.DataType.UINT8, attrData: 150 }])
  await until(() => events.trackerSeen.some((e) => e.battery !== undefined), 'battery')
  t.equal(events.trackerSeen.find((e) => e.battery !== undefined)!.battery, 75)

  adapter.sent.length = 0
  await radio.page('00:12:4b:00:aa:bb:cc:dd', 30)
  t.same(adapter.sent, [{ ieee: tracker.ieee, cluster: 'genIdentify', command: 'identify', payload: { identifytime: 30 } }])
  await radio.cancel('00:12:4b:00:aa:bb:cc:dd')
  t.same(adapter.sent[1], { ieee: tracker.ieee, cluster: 'genIdentify', command: 'identify', payload: { identifytime: 0 } })
  await t.rejects(radio.page('00:12:4b:00:00:00:00:99', 30), /no zigbee device/)
  await t.rejects(radio.page('00:12:4b:00:aa:bb:cc:dd', 0), RangeError)
})

t.test('starters and clearers report through the tracker cluster', async (t) => {
  const context = await setup(t)
  const { fake, radio, events } = context
  await radio.start()
  const adapter = fake.current!
  await joinAndSettle(context, adapter, starter)
  adapter.sendCommand(starter, 'trkTracker', 'started', { trackerIeee: tracker.ieee, trackerNumber: 42, orderType: 1 }, custom)
  await until(() => events.trackerStarted.length === 1, 'started')
  t.match(events.trackerStarted[0], { address: '00:12:4b:00:aa:bb:cc:dd', number: 42, orderType: 'TO_GO' })
  adapter.sendCommand(starter, 'trkTracker', 'cleared', { trackerIeee: tracker.ieee, trackerNumber: 42 }, custom)
  await until(() => events.trackerCleared.length === 1, 'cleared')
  t.match(events.trackerCleared[0], { address: '00:12:4b:00:aa:bb:cc:dd' })
  t.equal(events.repeaterJoined.length, 0, 'a starter unit is not a repeater')
  t.equal(events.trackerSeen.length, 0, 'a starter unit is not a tracker')
})

t.test('a router joining is announced as a repeater; joining opens and closes', async (t) => {
  const { fake, clock, radio, events } = await setup(t)
  await radio.start()
  const adapter = fake.current!
  await radio.permitJoin(254)
  t.same(adapter.permitJoins, [254])
  t.equal((await radio.info()).permitJoinUntil, clock.now() + 254_000)
  adapter.join(repeater)
  await until(() => events.repeaterJoined.length === 1, 'the repeater interview')
  t.match(events.repeaterJoined[0], {
    extendedAddress: '00:12:4b:00:11:22:33:44',
    shortAddress: 0x4321,
    deviceModel: 'REPEATER-2',
    manufacturerId: 0xfff1,
    firmwareVersion: '2.1.0',
    hardwareVersion: 3,
    deviceType: 'Router',
    profileId: 0x0104,
  })
  await radio.refreshRepeaters()
  t.equal(events.repeaterJoined.length, 2, 'a repeater answering a ping is announced again')
  await radio.permitJoin(0)
  t.same(adapter.permitJoins, [254, 0])
  t.equal((await radio.info()).permitJoinUntil, null)
  await t.rejects(radio.permitJoin(255), RangeError)
})

t.test('adapter loss ends the radio: reported once, status down, commands fail fast, no new controller', async (t) => {
  const lost: string[] = []
  const context = await setup(t, { radio: { onLost: (reason) => void lost.push(reason) } })
  const { fake, radio, events } = context
  await radio.start()
  await joinAndSettle(context, fake.current!, tracker)
  fake.current!.unplug()
  await until(() => lost.length === 1, 'the loss')
  t.same(lost, ['adapter disconnected'])
  t.same(events.status, [{ up: true }, { up: false, detail: 'adapter disconnected' }])
  await t.rejects(radio.page('00:12:4b:00:aa:bb:cc:dd', 60), /down/, 'commands fail fast while down')
  t.equal(fake.created.length, 1, 'no second controller in this process: the host process ends instead')
})

t.test('a failed start throws (the host process ends; nothing is retried here)', async (t) => {
  const { fake, radio, events } = await setup(t, { failStarts: 1 })
  await t.rejects(radio.start(), /No such file or directory/)
  t.equal((await radio.info()).up, false)
  t.same(events.status, [])
  t.equal(fake.created.length, 0)
})

t.test('a disconnect while herdsman is still starting is not lost', async (t) => {
  const lost: string[] = []
  const { fake, radio } = await setup(t, { radio: { onLost: (reason) => void lost.push(reason) } })
  fake.onCreate = (adapter) => void (adapter.disconnectDuringStart = true)
  await t.rejects(radio.start(), /adapter disconnected/)
  t.same(lost, ['adapter disconnected'])
  t.equal((await radio.info()).up, false)
})

t.test('the coordinator is checked periodically: no answer or a reset ends the radio', async (t) => {
  const lost: string[] = []
  const { fake, clock, radio } = await setup(t, { radio: { checkIntervalMs: 60_000, checkTimeoutMs: 5000, onLost: (reason) => void lost.push(reason) } })
  await radio.start()
  await clock.advance(60_000)
  await until(() => clock.pending > 0, 'the next check armed')
  t.same(lost, [], 'a coordinator that answers as before is fine')
  fake.current!.coordinatorEndpoints = []
  await clock.advance(60_000)
  await until(() => lost.length === 1, 'the loss')
  t.match(lost[0], /^coordinator check failed: coordinator endpoints changed from \[1,2\] to \[\] \(it was reset\)/)
})

t.test('a coordinator that stops answering is lost after the check timeout', async (t) => {
  const lost: string[] = []
  const { fake, clock, radio } = await setup(t, { radio: { checkIntervalMs: 60_000, checkTimeoutMs: 5000, onLost: (reason) => void lost.push(reason) } })
  await radio.start()
  fake.current!.hangCoordinator = true
  await clock.advance(60_000)
  await clock.advance(4999)
  t.same(lost, [])
  await clock.advance(1)
  await until(() => lost.length === 1, 'the loss')
  t.equal(lost[0], 'coordinator check failed: the coordinator did not answer within 5000 ms')
  t.equal((await radio.info()).up, false)
})

t.test('serial options reach herdsman; a /dev/serial/by-id link is resolved to its device', async (t) => {
  const byId = path.join(os.tmpdir(), `usb-Nabu_Casa_ZBT-2_${process.pid}-if00`)
  const { fake, dataDir, radio } = await setup(t, {
    radio: { adapter: 'ember', serialPort: byId, baudRate: 460800, rtscts: true, transmitPower: 10 },
  })
  writeFileSync(path.join(dataDir, 'ttyACM7'), '')
  symlinkSync(path.join(dataDir, 'ttyACM7'), byId)
  t.teardown(() => rmSync(byId, { force: true }))
  await radio.start()
  const adapter = fake.current as unknown as { serialPortOptions: object; adapterOptions: object }
  t.same(adapter.serialPortOptions, { adapter: 'ember', path: realpathSync(path.join(dataDir, 'ttyACM7')), baudRate: 460800, rtscts: true })
  t.match(adapter.adapterOptions, { transmitPower: 10 })
})

t.test('systemSerialPath leaves what is not a local link alone', async (t) => {
  t.equal(systemSerialPath(undefined), undefined)
  t.equal(systemSerialPath('tcp://10.0.0.2:6638'), 'tcp://10.0.0.2:6638')
  t.equal(systemSerialPath('/dev/does-not-exist-yet'), '/dev/does-not-exist-yet', 'a stick not plugged in yet: herdsman reports it')
})

t.test('a formed network whose database.db is gone is reported at start-up: devices must be paired again', async (t) => {
  const context = await setup(t)
  const { dataDir, radio, logs } = context
  const warning = () => logs.lines().filter((line) => /database\.db is missing/.test(String(line.msg)))
  await radio.start()
  await joinAndSettle(context, context.fake.current!, repeater)
  await radio.stop()
  const database = path.join(dataDir, 'zigbee', 'database.db')
  t.ok(existsSync(database), 'herdsman saved its device database')
  await radio.start()
  await radio.stop()
  t.same(warning(), [], 'no warning while both files are there')
  unlinkSync(database)
  await radio.start()
  t.match(warning(), [{ level: 40, msg: /every paired device must be paired again unless database\.db is restored from a backup/ }])
})

t.test("listSticks: herdsman's discovery, with the adapter type and options it knows for a stick", async (t) => {
  const list = SerialPort.list
  t.teardown(() => void (SerialPort.list = list))
  SerialPort.list = async () => [
    {
      path: '/dev/ttyUSB7',
      vendorId: '10c4',
      productId: 'ea60',
      manufacturer: 'Nabu Casa',
      pnpId: 'usb-Nabu_Casa_Home_Assistant_Connect_ZBT-1_9e2adbd7-if00-port0',
      serialNumber: undefined,
      locationId: undefined,
    },
    {
      path: '/dev/ttyS0',
      manufacturer: undefined,
      pnpId: undefined,
      serialNumber: undefined,
      locationId: undefined,
      vendorId: undefined,
      productId: undefined,
    },
  ]
  const sticks = (await listSticks()).filter((stick) => stick.path.startsWith('/dev/'))
  t.same(sticks, [
    { name: 'serial port without USB identity', path: '/dev/ttyS0', adapter: undefined, baudRate: undefined, rtscts: undefined },
    {
      name: 'usb-Nabu_Casa_Home_Assistant_Connect_ZBT-1_9e2adbd7-if00-port0 (Nabu Casa)',
      path: '/dev/ttyUSB7',
      adapter: 'ember',
      baudRate: undefined,
      rtscts: true,
    },
  ])
})

t.test("with the by-id link resolved, herdsman's discovery applies a known stick's own serial options", async (t) => {
  const device = path.join(os.tmpdir(), `ttyACM-zbt2-${process.pid}`)
  const byId = path.join(os.tmpdir(), `usb-Nabu_Casa_ZBT-2_10B41DE58D6C-if00-${process.pid}`)
  writeFileSync(device, '')
  symlinkSync(device, byId)
  t.teardown(() => {
    rmSync(byId, { force: true })
    rmSync(device, { force: true })
  })
  const list = SerialPort.list
  t.teardown(() => void (SerialPort.list = list))
  SerialPort.list = async () => [
    {
      path: realpathSync(device),
      vendorId: '303a',
      productId: '4001',
      manufacturer: 'Nabu Casa',
      pnpId: 'usb-Nabu_Casa_ZBT-2_10B41DE58D6C-if00',
      serialNumber: undefined,
      locationId: undefined,
    },
  ]
  t.match(await discoverAdapter('ember', byId), { baudRate: undefined, rtscts: undefined }, 'the link as configured: not matched (the defect)')
  t.match(await discoverAdapter('ember', systemSerialPath(byId)), { baudRate: 460800, rtscts: true }, 'resolved: the stick is recognised')
})
