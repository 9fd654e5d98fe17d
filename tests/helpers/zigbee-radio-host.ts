// A stand-in gateway process for the orphan test: starts a Zigbee radio process (with the
// fake coordinator, as FakeRemote.processOptions gives it) and prints its pid, then waits
// to be killed.
import { SystemClock } from '../../lib/kernel/clock.ts'
import { memoryLogger } from './memory-logger.ts'
import { fixedChannel, ZigbeeProcessRadio } from '../../lib/radio/zigbee-process.ts'

const radio = new ZigbeeProcessRadio({
  dataDir: process.argv[2],
  clock: new SystemClock(),
  channel: fixedChannel(15),
  log: memoryLogger('fatal').log,
  execArgv: JSON.parse(process.argv[3]) as string[],
})
await radio.start()
console.log(JSON.stringify({ radioPid: radio.pid }))
setInterval(() => {}, 60_000)
