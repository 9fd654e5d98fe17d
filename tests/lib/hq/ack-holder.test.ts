// The held PUBACK against a real Mosquitto: a message not released comes back on the next
// connection of the session; a released one does not. Fails if mqtt.js stops sending its
// acks through _sendPacket (the version is pinned; this is the check that it still fits).
import t from 'tap'
import { connect, type MqttClient } from 'mqtt'
import { AckHolder, type HeldAck } from '../../../lib/hq/ack-holder.ts'
import { until } from '../../helpers/until.ts'
import { startBroker } from '../fleet/mosquitto.ts'
import { publisher } from './fixtures.ts'

async function consumer(url: string): Promise<{ client: MqttClient; holder: AckHolder; received: { payload: string; ack: HeldAck; dup: boolean }[] }> {
  const client = connect(url, { clientId: 'held-acks', clean: false, protocolVersion: 4, reconnectPeriod: 0 })
  const holder = new AckHolder(client)
  const received: { payload: string; ack: HeldAck; dup: boolean }[] = []
  client.handleMessage = (packet, callback) => {
    if (packet.cmd === 'publish' && packet.messageId !== undefined)
      received.push({ payload: String(packet.payload), ack: holder.hold(packet.messageId), dup: packet.dup })
    callback()
  }
  await new Promise<void>((resolve) => client.once('connect', () => resolve()))
  await client.subscribeAsync('held/#', { qos: 1 })
  return { client, holder, received }
}

t.test('an ack held back is redelivered after a reconnect; a released one is not', async (t) => {
  const broker = await startBroker({ dir: t.testdir() })
  t.teardown(() => broker.stop())
  const site = await publisher(broker.url)
  t.teardown(() => site.endAsync(true))

  const first = await consumer(broker.url)
  await site.publishAsync('held/1', 'one', { qos: 1 })
  await site.publishAsync('held/2', 'two', { qos: 1 })
  await until(() => first.received.length === 2, 'two messages')
  t.equal(first.holder.release([first.received[0]!.ack]), 1, 'one ack sent')
  // Let the ack reach the broker before the connection goes.
  await first.client.publishAsync('held-sync', 'x', { qos: 1 })
  await first.client.endAsync(true)
  t.equal(first.holder.release([first.received[1]!.ack]), 0, 'no ack on a closed connection')

  const second = await consumer(broker.url)
  t.teardown(() => second.client.endAsync(true))
  await until(() => second.received.length >= 1, 'the unacknowledged message again')
  t.same(
    second.received.map((r) => r.payload),
    ['two'],
    'only the message whose ack was held',
  )
  t.equal(second.received[0]!.dup, true, 'sent again by the broker')
  t.equal(second.holder.release([first.received[1]!.ack]), 0, 'an ack of an earlier connection is never sent on this one')
})

t.test('a client without _sendPacket is refused at once', async (t) => {
  t.throws(() => new AckHolder({ on: () => undefined } as unknown as MqttClient), /does not fit this version/)
})
