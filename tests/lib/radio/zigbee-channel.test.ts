// Moving the network to another channel, through the real herdsman Controller: the fake
// coordinator keeps its channel across restarts (as a stick's NVRAM does), so herdsman's own
// change broadcast at start really runs, and a deCONZ-like stick can move alone. The
// supervisor's part (a new radio process on the new channel) is in zigbee-process.test.ts;
// here restartOn() plays it in one process.
import t from 'tap'
import { restartOn, setup } from '../../helpers/zigbee-radio.ts'

t.test('a change while the radio is up is broadcast to the network, then the coordinator restarts on it', async (t) => {
  const context = await setup(t)
  const { fake, radio, waits } = context
  await radio.start()
  const moved = await restartOn(t, context, 20)
  t.same(fake.current!.channelBroadcasts, [20], 'one broadcast: the restarted coordinator had nothing left to change')
  t.ok(waits.includes(12_000), 'herdsman waits for the broadcast to spread')
  t.equal((await moved.info()).channel, 20)
  t.equal(fake.current!.channel, 20)
  t.equal(fake.created.length, 2)
})

t.test("a coordinator still on the old channel at start (changed while the radio was off) gets herdsman's broadcast", async (t) => {
  const context = await setup(t)
  const { fake, radio } = context
  await radio.start()
  await radio.stop()
  const moved = await restartOn(t, context, 25)
  t.equal(fake.current!.startResult, 'resumed')
  t.same(fake.current!.channelBroadcasts, [25])
  t.equal((await moved.info()).channel, 25)
})

t.test('a deCONZ-like stick that moves alone while starting: the network is told before it moves', async (t) => {
  const context = await setup(t)
  const { fake, radio } = context
  await radio.start()
  fake.current!.movesAloneOnStart = true
  const moved = await restartOn(t, context, 11)
  t.same(fake.current!.channelBroadcasts, [11], 'without the broadcast before the restart, herdsman would send none')
  t.equal((await moved.info()).channel, 11)
})

t.test("when the broadcast before the restart fails, herdsman's own at start still moves the network", async (t) => {
  const context = await setup(t)
  const { fake, radio, logs } = context
  await radio.start()
  fake.current!.failNextBroadcast = true
  const moved = await restartOn(t, context, 20)
  t.ok(logs.lines().some((line) => line.level === 40 && line.msg === 'broadcasting the channel change failed; devices asleep may need pairing again'))
  t.same(fake.current!.channelBroadcasts, [20], 'sent by herdsman at start: the coordinator was still on 15')
  t.equal((await moved.info()).channel, 20)
})
