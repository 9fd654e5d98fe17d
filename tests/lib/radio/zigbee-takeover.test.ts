// A replacement coordinator stick takes the network over (lib/radio/zigbee-takeover.ts): the
// REAL herdsman Controller over fake sticks that keep their network in NVRAM and write and
// restore coordinator_backup.json as each family's real adapter does
// (tests/helpers/zigbee-fake-adapter.ts). The old stick dies; a blank one with another IEEE
// address is plugged in; the gateway starts on the same data dir.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import { ZigbeeRadio } from '../../../lib/radio/zigbee.ts'
import { coordinatorIeee, type FakeFamily } from '../../helpers/zigbee-fake-adapter.ts'
import { custom, joinAndSettle, repeater, setup, tracker } from '../../helpers/zigbee-radio.ts'
import { until } from '../../helpers/until.ts'
import { ieeeToAddress } from '../../../lib/radio/zigbee-profile.ts'
import { describeTakeoverSupport, newNetworkFormed, planStart, readCoordinatorBackup } from '../../../lib/radio/zigbee-takeover.ts'

const newStick = '0x00124b00deadbeef'
const backupFile = (dataDir: string) => path.join(dataDir, 'zigbee', 'coordinator_backup.json')

/** A network with a tracker and a repeater on a `family` stick, stopped (herdsman writes its backup at stop). */
async function formedNetwork(t: Test, family: FakeFamily, channel = 15) {
  const context = await setup(t, { family, radio: { adapter: family, channel } })
  await context.radio.start()
  await joinAndSettle(context, context.fake.current!, tracker)
  await joinAndSettle(context, context.fake.current!, repeater)
  await context.radio.stop()
  return context
}

/** The gateway started again on the same data dir, on whatever stick is plugged in now. */
async function startAgain(t: Test, context: Awaited<ReturnType<typeof formedNetwork>>, adapter: FakeFamily, channel = 15) {
  const radio = new ZigbeeRadio({ dataDir: context.dataDir, clock: context.clock, channel, log: context.logs.log, checkIntervalMs: 0, adapter })
  const events: unknown[] = []
  radio.on('trackerLocated', (event) => void events.push(event))
  t.teardown(() => radio.stop())
  return { radio, events }
}

const tookOver = /^zigbee replacement coordinator took the network over from coordinator_backup.json without pairing again/

t.test('a blank Z-Stack stick with another IEEE address takes over a Z-Stack network: no pairing again', async (t) => {
  const context = await formedNetwork(t, 'zstack')
  const backup = JSON.parse(readFileSync(backupFile(context.dataDir), 'utf8'))
  t.equal(backup.devices.length, 2, 'herdsman wrote the coordinator backup with both devices')
  context.fake.replaceStick({ family: 'zstack', ieee: newStick })
  const { radio, events } = await startAgain(t, context, 'zstack')
  await radio.start()
  const stick = context.fake.current!
  t.equal(stick.lastStart, 'restored', 'herdsman restored the backup onto the blank stick')
  const info = await radio.info()
  t.equal(info.devices, 2, 'both devices are still paired')
  t.equal(info.eui64, ieeeToAddress(coordinatorIeee), 'Z-Stack takes the old coordinator address')
  t.match(info.coordinator, { type: 'zStack3x0', firmware: 'fake-zstack-1.2.3', adapter: 'zstack', start: 'restored', backup: { supported: true } })
  t.ok(context.logs.lines().some((line) => tookOver.test(String(line.msg))))
  // The tracker speaks on the network the new stick took over: it is heard, and can be paged.
  stick.sendCommand(tracker, 'trkTracker', 'located', { tableId: 12 }, custom)
  await until(() => events.length === 1, 'the tracker to be heard')
  await radio.page(ieeeToAddress(tracker.ieee), 30)
  t.ok(stick.sent.some((frame) => frame.ieee === tracker.ieee && frame.command === 'identify'))
})

t.test('EmberZNet keeps its own address: the devices are bound to the new coordinator when they next speak', async (t) => {
  const context = await formedNetwork(t, 'ember')
  context.fake.replaceStick({ family: 'ember', ieee: newStick })
  const { radio, events } = await startAgain(t, context, 'ember')
  await radio.start()
  const stick = context.fake.current!
  t.equal(stick.lastStart, 'restored')
  t.equal((await radio.info()).eui64, ieeeToAddress(newStick))
  t.equal((await radio.info()).devices, 2)
  const said = context.logs.lines().find((line) => tookOver.test(String(line.msg)))
  t.match(said?.msg, /IEEE address 00:12:4b:00:01:02:03:04 before, 00:12:4b:00:de:ad:be:ef now/)
  stick.sendCommand(tracker, 'trkTracker', 'located', { tableId: 3 }, custom)
  await until(() => events.length === 1, 'the tracker to be heard')
  await until(() => stick.binds.some((bind) => bind.startsWith(tracker.ieee) && bind.includes(`-> ${newStick}/1`)), 'the tracker bound to the new coordinator')
})

t.test('across families: a Z-Stack or deCONZ stick takes over an EmberZNet network; a deCONZ one a Z-Stack network', async (t) => {
  for (const [from, to] of [
    ['ember', 'zstack'],
    ['ember', 'deconz'],
    ['zstack', 'deconz'],
  ] as const) {
    await t.test(`${from} -> ${to}`, async (t) => {
      const context = await formedNetwork(t, from)
      context.fake.replaceStick({ family: to, ieee: newStick })
      const { radio } = await startAgain(t, context, to)
      await radio.start()
      t.equal(context.fake.current!.lastStart, 'restored')
      t.equal((await radio.info()).devices, 2)
    })
  }
})

t.test('an EmberZNet stick and a Z-Stack backup: not started, and told what to do; the backup is kept as it was', async (t) => {
  const context = await formedNetwork(t, 'zstack')
  const before = readFileSync(backupFile(context.dataDir), 'utf8')
  context.fake.replaceStick({ family: 'ember', ieee: newStick })
  const { radio } = await startAgain(t, context, 'ember')
  await t.rejects(
    radio.start(),
    /written by a Z-Stack coordinator, and an EmberZNet stick \(adapter ember\) cannot take over that network\. To keep the network, use a Z-Stack or deCONZ stick/,
  )
  t.equal(readFileSync(backupFile(context.dataDir), 'utf8'), before)
  t.ok(
    context.logs
      .lines()
      .some((line) => /^zigbee radio not started: coordinator_backup.json was written by a Z-Stack/.test(String(line.msg)) && line.level === 50),
  )
})

t.test('ZiGate keeps no backup: a replacement forms a new network, and the log says every device must be paired again', async (t) => {
  const context = await formedNetwork(t, 'zigate')
  t.notOk(existsSync(backupFile(context.dataDir)), 'no coordinator backup was written')
  context.fake.replaceStick({ family: 'zigate', ieee: newStick })
  const { radio } = await startAgain(t, context, 'zigate')
  await radio.start()
  t.equal(context.fake.current!.lastStart, 'reset')
  t.equal((await radio.info()).devices, 0)
  t.match((await radio.info()).coordinator, {
    start: 'reset',
    backup: {
      supported: false,
      at: null,
      takeover: /zigate keeps no coordinator backup: a replacement stick forms a new network and every device must be paired again/,
    },
  })
  t.ok(
    context.logs
      .lines()
      .some(
        (line) =>
          line.level === 50 &&
          /^zigbee the coordinator formed a new network \(zigate keeps no coordinator backup\): every device must be paired again/.test(String(line.msg)),
      ),
  )
})

t.test('the backup has the network on another channel than the preset: restored there, then moved', async (t) => {
  const context = await formedNetwork(t, 'zstack', 15)
  context.fake.replaceStick({ family: 'zstack', ieee: newStick })
  const { radio } = await startAgain(t, context, 'zstack', 20)
  await radio.start()
  const stick = context.fake.current!
  t.equal(stick.lastStart, 'restored', 'restored on channel 15, where the backup has it')
  t.same(stick.channelBroadcasts.at(-1), 20, 'then the network was told to move to 20')
  t.equal((await radio.info()).channel, 20)
  t.equal((await radio.info()).devices, 2)
  t.ok(context.logs.lines().some((line) => /the last coordinator backup has the network on channel 15: starting there/.test(String(line.msg))))
})

t.test('the same stick again: resumed, the coordinator described in the log', async (t) => {
  const context = await formedNetwork(t, 'zstack')
  const { radio } = await startAgain(t, context, 'zstack')
  await radio.start()
  t.equal(context.fake.current!.lastStart, 'resumed')
  // herdsman's daily backup: the date in the status follows the file.
  const file = backupFile(context.dataDir)
  const backup = JSON.parse(readFileSync(file, 'utf8'))
  backup.metadata.internal.date = '2031-01-02T03:04:05.000Z'
  writeFileSync(file, JSON.stringify(backup))
  t.equal((await radio.info()).coordinator?.backup.at, Date.parse('2031-01-02T03:04:05.000Z'))
  t.ok(
    context.logs
      .lines()
      .some(
        (line) =>
          line.msg === 'zigbee coordinator connected' &&
          line.coordinator === 'zStack3x0 (adapter zstack), firmware fake-zstack-1.2.3, IEEE 00:12:4b:00:01:02:03:04' &&
          line.firmware === 'fake-zstack-1.2.3',
      ),
  )
})

t.test('a damaged coordinator backup: not started (herdsman would fail on it), told to restore it or move it aside', async (t) => {
  const context = await formedNetwork(t, 'zstack')
  writeFileSync(backupFile(context.dataDir), '{"metadata": ')
  const { radio } = await startAgain(t, context, 'zstack')
  await t.rejects(
    radio.start(),
    /coordinator_backup.json is damaged \(not JSON .*\): herdsman cannot start with it\. Restore the file from a backup of the data dir, or move it aside/,
  )
})

// The plan on its own (lib/radio/zigbee-takeover.ts), for what the fake sticks above do not reach.
t.test('reading a coordinator backup: missing, damaged, legacy, unified', async (t) => {
  const dir = t.testdir({
    legacy: { 'coordinator_backup.json': JSON.stringify({ adapterType: 'zStack', time: 'x', data: {} }) },
    other: { 'coordinator_backup.json': JSON.stringify({ metadata: { format: 'something', version: 1 } }) },
    unreadable: { 'coordinator_backup.json': {} },
    deconz: {
      'coordinator_backup.json': JSON.stringify({
        metadata: { format: 'zigpy/open-coordinator-backup', version: 1, internal: {} },
        coordinator_ieee: '00212EFFFF001234',
        pan_id: '1a2b',
        extended_pan_id: 'DDDDDDDDDDDDDDDD',
        channel: 20,
        network_key: { key: 'AA'.repeat(16) },
        devices: [{}, {}],
      }),
    },
  })
  t.same(readCoordinatorBackup(path.join(dir, 'none')), { state: 'none' })
  t.match(readCoordinatorBackup(path.join(dir, 'legacy')), { state: 'ok', backup: { family: 'zstack', panId: null, channel: null } })
  t.match(readCoordinatorBackup(path.join(dir, 'other')), { state: 'damaged', error: /not a coordinator backup herdsman can read/ })
  t.match(readCoordinatorBackup(path.join(dir, 'unreadable')), { state: 'damaged', error: /EISDIR/ }, 'a directory where the file should be')
  t.match(readCoordinatorBackup(path.join(dir, 'deconz')), {
    state: 'ok',
    backup: {
      family: 'other',
      coordinatorEui64: '00:21:2e:ff:ff:00:12:34',
      panId: 0x1a2b,
      extendedPanId: 'dddddddddddddddd',
      networkKey: 'aa'.repeat(16),
      channel: 20,
      devices: 2,
      at: Number,
    },
  })
})

t.test('the plan for each adapter', async (t) => {
  const credentials = { networkKey: Array(16).fill(0xaa), extendedPanId: [1, 2, 3, 4, 5, 6, 7, 8], panId: 0x1a2b }
  const backup = {
    family: 'zstack' as const,
    coordinatorEui64: null,
    channel: 20,
    panId: 0x1a2b,
    extendedPanId: '0102030405060708',
    networkKey: 'aa'.repeat(16),
    devices: 0,
    at: 0,
  }
  const ok = { state: 'ok' as const, backup }
  t.same(planStart('zstack', credentials, 15, { state: 'none' }), { channel: 15, warnings: [] })
  t.match(planStart('zstack', credentials, 15, ok), { channel: 20, warnings: [/on channel 20: starting there/] })
  t.same(planStart('zstack', credentials, 20, ok), { channel: 20, warnings: [] })
  t.match(
    planStart('deconz', credentials, 15, { state: 'ok', backup: { ...backup, extendedPanId: '0807060504030201' } }),
    { channel: 20 },
    'the extended PAN ID in either byte order',
  )
  t.match(planStart('zstack', credentials, 15, { state: 'ok', backup: { ...backup, panId: 0x9999 } }), {
    channel: 15,
    warnings: [/of another network \(PAN ID 9999\)/],
  })
  t.match(planStart('ember', credentials, 15, ok), { refusal: /Z-Stack coordinator, and an EmberZNet stick \(adapter ember\)/ })
  t.match(planStart('ezsp', credentials, 15, { state: 'ok', backup: { ...backup, family: 'other' } }), { refusal: /deCONZ or other coordinator/ })
  t.match(planStart('ember', credentials, 15, { state: 'ok', backup: { ...backup, family: 'ember' } }), { channel: 20 })
  t.same(planStart('zigate', credentials, 15, ok), { channel: 15, warnings: [] }, 'zigate never reads it')
  t.same(planStart('zboss', credentials, 15, { state: 'damaged', error: 'x' }), { channel: 15, warnings: [] })
  t.match(planStart(undefined, credentials, 15, { state: 'damaged', error: 'x' }), { refusal: /damaged \(x\)/ }, 'a detected adapter may read it')
  t.same(planStart('zoh', credentials, 15, ok), { channel: 15, warnings: [] })
  t.same(
    planStart('zstack', credentials, 15, { state: 'ok', backup: { ...backup, panId: null, extendedPanId: null, networkKey: null, channel: null } }),
    { channel: 15, warnings: [] },
    'a legacy backup: nothing to compare',
  )
})

t.test('the words for each adapter', async (t) => {
  t.match(describeTakeoverSupport('deconz'), /^a blank deconz stick takes the network over/)
  t.match(describeTakeoverSupport('zboss'), /^zboss keeps no coordinator backup/)
  t.match(describeTakeoverSupport('zoh'), /zoh\.save/)
  t.match(describeTakeoverSupport(undefined), /set radio\.adapter/)
  const credentials = { networkKey: Array(16).fill(0xaa), extendedPanId: [1, 2, 3, 4, 5, 6, 7, 8], panId: 0x1a2b }
  t.match(newNetworkFormed('zstack', { state: 'none' }, credentials), /no coordinator_backup\.json to take it over from/)
  const other = {
    family: 'zstack' as const,
    coordinatorEui64: null,
    channel: 20,
    panId: 1,
    extendedPanId: '0102030405060708',
    networkKey: 'aa'.repeat(16),
    devices: 0,
    at: 0,
  }
  t.match(newNetworkFormed('zstack', { state: 'ok', backup: other }, credentials), /is of another network/)
  t.match(newNetworkFormed('zstack', { state: 'ok', backup: { ...other, panId: 0x1a2b } }, credentials), /did not take the network over/)
})
