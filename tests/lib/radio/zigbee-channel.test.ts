// Moving the network to another channel, through the real herdsman Controller: the fake
// coordinator keeps its channel across restarts (as a stick's NVRAM does), so herdsman's own
// change broadcast at start really runs, and a deCONZ-like stick can move alone.
import t from 'tap'
import { setup } from '../../helpers/zigbee-radio.ts'
import { until } from '../../helpers/until.ts'

t.test('a change while the radio is up is broadcast to the network, then the coordinator restarts on it', async (t) => {
  const { fake, channel, radio, events, waits } = await setup(t)
  await radio.start()
  channel.set(20)
  await until(() => fake.created.length === 2 && events.status.length === 3, 'the restart')
  t.same(fake.current!.channelBroadcasts, [20], 'one broadcast: the restarted coordinator had nothing left to change')
  t.ok(waits.includes(12_000), 'herdsman waits for the broadcast to spread')
  t.same(events.status.map((s) => s.up), [true, false, true])
  t.same(events.status[1], { up: false, detail: 'changing channel' })
  t.equal((await radio.info()).channel, 20)
  t.equal(fake.current!.channel, 20)
})

t.test('a coordinator still on the old channel at start (changed while the radio was off) gets herdsman\'s broadcast', async (t) => {
  const { fake, channel, radio } = await setup(t)
  await radio.start()
  await radio.stop()
  channel.value = 25
  await radio.start()
  t.equal(fake.current!.startResult, 'resumed')
  t.same(fake.current!.channelBroadcasts, [25])
  t.equal((await radio.info()).channel, 25)
})

t.test('a deCONZ-like stick that moves alone while starting: the network is told before it moves', async (t) => {
  const { fake, channel, radio, events } = await setup(t)
  await radio.start()
  fake.current!.movesAloneOnStart = true
  channel.set(11)
  await until(() => fake.created.length === 2 && events.status.length === 3, 'the restart')
  t.same(fake.current!.channelBroadcasts, [11], 'without the broadcast before the restart, herdsman would send none')
  t.equal((await radio.info()).channel, 11)
})

t.test('when the broadcast before the restart fails, herdsman\'s own at start still moves the network', async (t) => {
  const { fake, channel, radio, events, logs } = await setup(t)
  await radio.start()
  fake.current!.failNextBroadcast = true
  channel.set(20)
  await until(() => fake.created.length === 2 && events.status.length === 3, 'the restart')
  t.ok(logs.lines().some((line) => line.level === 40 && line.msg === 'broadcasting the channel change failed; devices asleep may need pairing again'))
  t.same(fake.current!.channelBroadcasts, [20], 'sent by herdsman at start: the coordinator was still on 15')
  t.equal((await radio.info()).channel, 20)
})
