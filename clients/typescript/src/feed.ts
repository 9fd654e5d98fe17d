// The WebSocket feed (GET /api/v2/websocket): send the token frame, receive a snapshot of every
// active order (ACTIVE_ORDERS, with the seq it includes), then one frame per change. When the
// connection drops, reconnect with a growing delay; the new snapshot's seq says which change
// frames are already in it, so none is applied twice and none is missed.
import WebSocket from 'ws'
import type { components } from './schema.d.ts'

export type Snapshot = components['schemas']['WsActiveOrdersFrame']
export type OrderChange = components['schemas']['WsOrderChangeFrame']

export interface FeedOptions {
  baseUrl: string
  token: string
  /** The whole list of active orders: on the first connection and after every reconnect. */
  onSnapshot: (snapshot: Snapshot) => void
  /** A change after the last snapshot, in seq order. */
  onChange: (change: OrderChange) => void
  /** An error frame (bad token: the feed stops) or a dropped connection (it reconnects). */
  onError?: (error: { status?: number; returnCode?: number; message?: string }) => void
  /** Delays before reconnecting, ms; the last repeats. */
  retryDelays?: number[]
}

export interface Feed {
  /** The seq of the last change applied (snapshot or change frame). */
  readonly seq: number
  close(): void
}

export function orderFeed(options: FeedOptions): Feed {
  const delays = options.retryDelays ?? [250, 1000, 5000]
  let seq = -1
  let attempt = 0
  let closed = false
  let socket: WebSocket | undefined
  let timer: NodeJS.Timeout | undefined
  const url = `${options.baseUrl.replace(/^http/, 'ws')}/api/v2/websocket`

  const connect = () => {
    socket = new WebSocket(url)
    socket.on('open', () => socket!.send(JSON.stringify({ accesstoken: options.token })))
    socket.on('message', (data) => {
      const frame = JSON.parse(String(data)) as Record<string, unknown>
      if (typeof frame.returnCode === 'number' && frame.returnCode < 0) {
        options.onError?.(frame)
        if (frame.returnCode === -2) closed = true // a token that will never work
        return
      }
      if (frame.type === 'ACTIVE_ORDERS') {
        attempt = 0
        seq = frame.seq as number
        options.onSnapshot(frame as Snapshot)
        return
      }
      const change = frame as OrderChange
      if (change.seq <= seq) return // already in the snapshot
      seq = change.seq
      options.onChange(change)
    })
    socket.on('error', () => {})
    socket.on('close', () => {
      if (closed) return
      options.onError?.({ message: 'connection closed; reconnecting' })
      timer = setTimeout(connect, delays[Math.min(attempt++, delays.length - 1)])
    })
  }
  connect()
  return {
    get seq() {
      return seq
    },
    close() {
      closed = true
      clearTimeout(timer)
      socket?.close()
    },
  }
}
