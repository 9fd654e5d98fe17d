// A data dir with a coordinator backup, and herdsman's REAL adapters on a silent
// pseudo-terminal standing in for a replacement stick: as far as a pseudo-terminal reaches.
// No adapter gets to the backup without a coordinator answering, so what is tested is that a
// failed start never spoils it (the next stick that answers can still take the network over),
// and that the gateway refuses an EmberZNet stick another family's backup before the port is
// even opened.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import { SystemClock } from '../../../lib/kernel/clock.ts'
import type { RadioEvents } from '../../../lib/radio/radio.ts'
import { ZigbeeProcessRadio, type ZigbeeProcessOptions } from '../../../lib/radio/zigbee-process.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { PseudoTerminal } from '../../helpers/pty.ts'
import { TestChannel } from '../../helpers/zigbee-radio.ts'
import { until } from '../../helpers/until.ts'

const attemptMs = 60_000
const credentials = { networkKey: '00112233445566778899aabbccddeeff', extendedPanId: '0102030405060708', panId: 4660 }

function backup(family: 'zstack' | 'ember') {
  return JSON.stringify(
    {
      metadata: {
        format: 'zigpy/open-coordinator-backup',
        version: 1,
        source: 'zigbee-herdsman@10.9.5',
        internal: family === 'zstack' ? { znpVersion: 1 } : { ezspVersion: 13 },
      },
      stack_specific: family === 'zstack' ? { zstack: {} } : { ezsp: { hashed_tclk: '07070707070707070707070707070707' } },
      coordinator_ieee: '00124b0001020304',
      pan_id: '1234',
      extended_pan_id: '0102030405060708',
      nwk_update_id: 0,
      security_level: 5,
      channel: 15,
      channel_mask: [15],
      network_key: { key: credentials.networkKey, sequence_number: 0, frame_counter: 1200 },
      devices: [],
    },
    null,
    2,
  )
}

async function dataDirWith(t: Test, family: 'zstack' | 'ember'): Promise<{ dataDir: string; file: string; text: string }> {
  const dataDir = t.testdir()
  mkdirSync(path.join(dataDir, 'zigbee'), { recursive: true })
  writeFileSync(path.join(dataDir, 'zigbee', 'network.json'), JSON.stringify(credentials))
  const file = path.join(dataDir, 'zigbee', 'coordinator_backup.json')
  const text = backup(family)
  writeFileSync(file, text)
  return { dataDir, file, text }
}

/**
 * One start on a silent stick: ended by the adapter's own failure, or (`until: 'reached'`) by
 * the gateway stopping once the adapter has written to the stick (herdsman's slower adapters
 * take 20 s and more to give up).
 */
async function attempt(t: Test, dataDir: string, options: Pick<ZigbeeProcessOptions, 'adapter'>, until_: 'reached' | 'failed' = 'failed') {
  const stick = await PseudoTerminal.open()
  t.teardown(() => stick.close())
  const down: string[] = []
  const radio = new ZigbeeProcessRadio({
    dataDir,
    clock: new SystemClock(),
    channel: new TestChannel(),
    log: memoryLogger('fatal').log,
    restartDelaysMs: [3_600_000],
    startWaitMs: 0,
    startTimeoutMs: attemptMs,
    serialPort: stick.device,
    ...options,
  })
  radio.on('status', (event: RadioEvents['status']) => void (!event.up && event.detail && down.push(event.detail)))
  t.teardown(() => radio.stop())
  await radio.start()
  if (until_ === 'reached') {
    await until(() => stick.received.length > 0 || down.length > 0, 'the adapter to reach the stick', attemptMs)
    await new Promise((resolve) => setTimeout(resolve, 1000))
  } else {
    await until(() => down.length >= 1, 'the attempt to end', attemptMs)
  }
  await radio.stop()
  return { stick, reason: down[0] }
}

t.test('zstack: a silent stick fails its start and leaves the coordinator backup as it was', async (t) => {
  const { dataDir, file, text } = await dataDirWith(t, 'zstack')
  const { stick, reason } = await attempt(t, dataDir, { adapter: 'zstack' })
  t.ok(stick.received.length > 0, 'the adapter reached the stick')
  t.match(reason, /cannot set|Failed to connect/, 'failed as any silent stick does')
  t.equal(readFileSync(file, 'utf8'), text, 'the backup is untouched')
})

for (const [adapter, family] of [
  ['ember', 'ember'],
  ['deconz', 'zstack'],
  ['zboss', 'zstack'],
  ['zigate', 'zstack'],
] as const) {
  t.test(`${adapter}: a start on a silent stick, stopped by the gateway, leaves the coordinator backup as it was`, async (t) => {
    const { dataDir, file, text } = await dataDirWith(t, family)
    const { stick, reason } = await attempt(t, dataDir, { adapter }, 'reached')
    t.ok(stick.received.length > 0, 'the adapter reached the stick')
    t.notMatch(reason ?? '', /coordinator_backup/, 'no backup problem was found')
    t.equal(readFileSync(file, 'utf8'), text, 'the backup is untouched')
  })
}

t.test('ember with a Z-Stack backup: refused before the port is opened, the reason says what to do', async (t) => {
  const { dataDir, file, text } = await dataDirWith(t, 'zstack')
  const { stick, reason } = await attempt(t, dataDir, { adapter: 'ember' })
  t.match(reason, /^coordinator_backup.json was written by a Z-Stack coordinator, and an EmberZNet stick \(adapter ember\) cannot take over that network/)
  t.equal(stick.received.length, 0, 'nothing was written to the stick')
  t.equal(readFileSync(file, 'utf8'), text)
})
