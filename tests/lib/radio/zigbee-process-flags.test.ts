// The radio process gets its own Node flags after the gateway's (lib/radio/zigbee-process-flags.ts):
// a real radio process on the fake coordinator, its command line read from /proc.
import { readFileSync } from 'node:fs'
import t from 'tap'
import { ManualClock } from '../../helpers/manual-clock.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { ZigbeeProcessRadio } from '../../../lib/radio/zigbee-process.ts'
import { radioProcessNodeFlags } from '../../../lib/radio/zigbee-process-flags.ts'
import { FakeRemote } from '../../helpers/zigbee-fake-remote.ts'
import { TestChannel } from '../../helpers/zigbee-radio.ts'

/** The value V8 takes for a flag given several times: the last. */
const lastValue = (argv: string[], flag: string) => argv.findLast((arg) => arg.startsWith(`${flag}=`))?.slice(flag.length + 1)

t.test('the radio process runs with its young generation capped, after the flags it inherits and before the caller\'s', async (t) => {
  const remote = await FakeRemote.open(t)
  const radio = new ZigbeeProcessRadio({ dataDir: t.testdir(), clock: new ManualClock(), channel: new TestChannel(), log: memoryLogger('fatal').log, ...remote.processOptions })
  t.teardown(() => radio.stop())
  await radio.start()
  t.ok((await radio.info()).up, 'herdsman came up with the flags')
  const argv = readFileSync(`/proc/${radio.pid}/cmdline`, 'utf8').split('\0')
  t.equal(lastValue(argv, '--max-semi-space-size'), '1', 'the young generation is capped at 1 MB whatever the gateway runs with')
  const own = argv.indexOf(radioProcessNodeFlags[0])
  for (const arg of process.execArgv) t.ok(argv.indexOf(arg) < own, `inherited ${arg} comes first`)
  t.ok(argv.indexOf('--import') > own, "the caller's flags come last")
})
