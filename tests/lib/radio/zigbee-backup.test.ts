// A gateway backup asks the radio process for herdsman's Controller.backup(): the device
// database is saved (and a coordinator backup written where the adapter keeps one) before
// the gateway reads the radio's files; nothing while the radio is down.
import t from 'tap'
import { existsSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { ManualClock } from '../../helpers/manual-clock.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { ZigbeeProcessRadio } from '../../../lib/radio/zigbee-process.ts'
import { FakeRemote } from '../../helpers/zigbee-fake-remote.ts'
import { TestChannel } from '../../helpers/zigbee-radio.ts'

t.test('the radio process writes its files afresh when asked; false while down', async (t) => {
  const remote = await FakeRemote.open(t)
  const dataDir = t.testdir()
  const radio = new ZigbeeProcessRadio({
    dataDir,
    clock: new ManualClock(),
    channel: new TestChannel(),
    log: memoryLogger('warn').log,
    restartDelaysMs: [1000],
    ...remote.processOptions,
  })
  t.teardown(() => radio.stop())
  t.equal(await radio.backupCoordinator(), false, 'no radio process yet')
  await radio.start()
  const database = path.join(dataDir, 'zigbee', 'database.db')
  const before = existsSync(database) ? statSync(database).mtimeMs : 0
  await new Promise((resolve) => setTimeout(resolve, 20))
  t.equal(await radio.backupCoordinator(), true)
  t.ok(existsSync(database), "herdsman's device database is saved")
  t.ok(statSync(database).mtimeMs >= before)
  t.match(readFileSync(database, 'utf8'), /"type":"Coordinator"/)
  t.ok(existsSync(path.join(dataDir, 'zigbee', 'network.json')))
  await radio.stop()
  t.equal(await radio.backupCoordinator(), false, 'stopped: nothing asked')
})
