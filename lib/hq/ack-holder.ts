// Holds an MQTT client's PUBACKs until we release them. mqtt.js hands a QoS 1 message over
// and then acknowledges it at once, one message at a time; its own hook for late acks
// (customHandleAcks, handleMessage) stops the reading of every later message until the ack,
// so no batch could ever form. Here the library's puback is caught on its way out (the
// client's _sendPacket, pinned with mqtt 5.16.0; tests/lib/hq/ack-holder.test.ts fails if it
// moves), the library goes on reading, and the ack is written once the batch that holds the
// message has committed. An ack is only ever written on the connection that received the
// message: after a reconnect the broker sends unacknowledged messages again itself.
import type { MqttClient } from 'mqtt'

interface Packet {
  cmd: string
  messageId?: number
}

type Send = (packet: Packet, cb?: (error?: Error) => void, ...rest: unknown[]) => void

export interface HeldAck {
  messageId: number
  connection: number
}

/** Connection numbers, unique in this process: an ack never matches another client's connection. */
let connections = 0

export class AckHolder {
  readonly #client: MqttClient
  readonly #send: Send
  #connection = ++connections

  constructor(client: MqttClient) {
    this.#client = client
    const target = client as unknown as { _sendPacket: Send }
    if (typeof target._sendPacket !== 'function') throw new Error('mqtt.js has no _sendPacket: AckHolder does not fit this version')
    this.#send = target._sendPacket.bind(client)
    target._sendPacket = (packet, cb, ...rest) => {
      if (packet.cmd === 'puback') {
        cb?.()
        return
      }
      this.#send(packet, cb, ...rest)
    }
    // Every new connection gets a new number: acks held for an earlier one are void.
    client.on('connect', () => void (this.#connection = ++connections))
    client.on('close', () => void (this.#connection = ++connections))
  }

  /** The ack a message received now will need, on this connection. */
  hold(messageId: number): HeldAck {
    return { messageId, connection: this.#connection }
  }

  /** Sends the held acks that belong to the current connection; returns how many. */
  release(acks: HeldAck[]): number {
    if (!this.#client.connected) return 0
    let sent = 0
    for (const ack of acks) {
      if (ack.connection !== this.#connection) continue
      this.#send({ cmd: 'puback', messageId: ack.messageId })
      sent++
    }
    return sent
  }
}
