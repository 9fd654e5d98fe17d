import t, { type Test } from 'tap'
import { WebSocket } from 'ws'
import { createHttpHost } from '../../../runtime/host/http.ts'
import { WsHub, type WsLimits } from '../../../runtime/host/ws.ts'
import { testGateway } from '../../helpers/gateway.ts'
import { incomingProblem, serverFrameProblem } from '../../helpers/documented-responses.ts'
import { sampleOrder } from '../../helpers/webhooks.ts'
import { until } from '../../helpers/until.ts'

async function setup(t: Test, limits: Partial<WsLimits> = {}, before?: (gw: Awaited<ReturnType<typeof testGateway>>) => Promise<void>) {
  const gw = await testGateway()
  await before?.(gw)
  const host = createHttpHost(gw.router, gw.services.log)
  const hub = new WsHub(host.server, gw.services, limits)
  hub.start()
  const port = await host.listen(0, '127.0.0.1')
  const sockets: WebSocket[] = []
  t.teardown(async () => {
    for (const s of sockets) s.terminate()
    await hub.stop()
    await host.close(100)
    gw.services.webhooks.close()
  })
  const connect = async (path = '/api/v2/websocket') => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}${path}`)
    sockets.push(socket)
    const frames: any[] = []
    const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)))
    socket.on('message', (data) => {
      const frame = JSON.parse(data.toString())
      // Every frame the feed sends is one the document describes (x-websocket).
      const problem = serverFrameProblem(frame)
      if (problem) t.fail(problem)
      frames.push(frame)
    })
    socket.on('error', () => {})
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve())
      socket.once('unexpected-response', async (_req, res) => {
        reject(new Error(`upgrade refused: ${res.statusCode}; ${(await incomingProblem('GET', path, res)) ?? 'as documented'}`))
      })
    })
    return { socket, frames, closed }
  }
  return { gw, hub, port, connect }
}

/**
 * Pings the server and waits for its pong: everything the server sent this client before
 * answering (a close, a frame) has arrived by then, and everything the client sent before
 * the ping has been read by the server.
 */
function roundTrip(socket: WebSocket): Promise<void> {
  return new Promise((resolve) => {
    socket.once('pong', () => resolve())
    socket.ping()
  })
}

t.test('no token within 10 s (on the clock): 408 -32 and close', async (t) => {
  const { gw, connect } = await setup(t)
  const client = await connect()
  await gw.clock.advance(9_999)
  await roundTrip(client.socket)
  t.same(client.frames, [], 'nothing before 10 s')
  await gw.clock.advance(1)
  await client.closed
  t.match(client.frames, [{ status: 408, returnCode: -32, message: String }])
})

t.test('a bad token: 401 -2 and close; a frame without accesstoken too', async (t) => {
  const { connect } = await setup(t)
  const client = await connect()
  client.socket.send(JSON.stringify({ accesstoken: 'f'.repeat(48) }))
  await client.closed
  t.match(client.frames, [{ status: 401, returnCode: -2 }])
  const other = await connect()
  other.socket.send(JSON.stringify({ hello: 1 }))
  await other.closed
  t.match(other.frames, [{ status: 401, returnCode: -2 }])
})

t.test('a non-JSON frame: 400 -31, the connection stays; then auth, snapshot and change frames; later frames are ignored', async (t) => {
  const { gw, connect } = await setup(t, {}, async (gw) => {
    await gw.services.orders.create({ name: 5, orderType: 'TO_GO', requireTracker: false })
  })
  const token = await gw.issueToken()
  await gw.services.changes.record('ORDER_CREATED', sampleOrder(7, gw.clock.now()))
  const client = await connect()
  client.socket.send('not json')
  await until(() => client.frames.length === 1)
  t.match(client.frames[0], { status: 400, returnCode: -31 })
  client.socket.send(JSON.stringify({ accesstoken: token }))
  await until(() => client.frames.length === 2)
  const snapshot = client.frames[1]
  t.match(snapshot, { type: 'ACTIVE_ORDERS', count: 2, seq: gw.services.changes.lastSeq })
  t.same(snapshot.items.map((o: any) => o.name).sort(), ['5', '7'], 'orders from before the hub started and after')
  t.match(snapshot.items[0], { uuid: String, name: String, orderType: String, state: 'started', stateChanged: String, paged: false, elapsedTime: Number })

  const seqBefore = gw.services.changes.lastSeq
  // After authentication a frame, JSON or not, is ignored: the next frame is the event.
  client.socket.send('not json either')
  client.socket.send(Buffer.from([1, 2, 3]))
  client.socket.send(JSON.stringify({ accesstoken: token }))
  await gw.services.changes.record('ORDER_PAGED', sampleOrder(7, gw.clock.now(), { paged: true }))
  await gw.services.changes.record('ORDER_CLEARED', sampleOrder(7, gw.clock.now(), { state: 'cleared' }))
  await until(() => client.frames.length === 4)
  t.match(client.frames[2], { type: 'ORDER_PAGED', seq: seqBefore + 1, name: '7', paged: true, uuid: String, stateChanged: String })
  t.match(client.frames[3], { type: 'ORDER_CLEARED', seq: seqBefore + 2, state: 'cleared' })
  // The server answers a ping after the frames before it: by the pong, all three were handled.
  await new Promise((resolve) => {
    client.socket.once('pong', resolve)
    client.socket.ping()
  })
  t.equal(client.frames.length, 4, 'no answer to frames after authentication')
  // A later subscriber's snapshot no longer has the cleared order.
  const late = await connect()
  late.socket.send(JSON.stringify({ accesstoken: token }))
  await until(() => late.frames.length === 1)
  t.same(
    late.frames[0].items.map((o: any) => o.name),
    ['5'],
  )
})

t.test('a frame over maxPayload closes with 1009; other paths are refused', async (t) => {
  const { connect } = await setup(t)
  const client = await connect()
  client.socket.send('x'.repeat(5000))
  t.equal(await client.closed, 1009)
  await t.rejects(connect('/api/v2/other'), /upgrade refused: 404; as documented/)
})

t.test('a revoked token ends the session', async (t) => {
  const { gw, connect } = await setup(t)
  const token = await gw.issueToken('kds')
  const client = await connect()
  client.socket.send(JSON.stringify({ accesstoken: token }))
  await until(() => client.frames.length === 1)
  await gw.services.tokens.revokeByName('kds')
  t.equal(await client.closed, 1008)
})

t.test('pings drop a client that stopped answering', async (t) => {
  const { gw, hub, connect } = await setup(t, { pingIntervalMs: 1000 })
  const token = await gw.issueToken()
  const client = await connect()
  client.socket.send(JSON.stringify({ accesstoken: token }))
  await until(() => client.frames.length === 1)
  const live = await connect()
  live.socket.send(JSON.stringify({ accesstoken: token }))
  await until(() => live.frames.length === 1)
  // The dead client's socket stops reading, so it never answers a ping.
  ;(client.socket as unknown as { _socket: { pause(): void } })._socket.pause()
  const pinged = new Promise((resolve) => live.socket.once('ping', resolve))
  await gw.clock.advance(1000)
  await pinged
  // The live client answered that ping on receipt; our own ping behind it proves it arrived.
  await roundTrip(live.socket)
  await gw.clock.advance(1000)
  await until(() => hub.clientCount === 1, 'dead client dropped')
  t.equal(live.socket.readyState, WebSocket.OPEN, 'the live client stays')
})

t.test('a slow client is dropped instead of buffering without bound', async (t) => {
  const { gw, hub, connect } = await setup(t, { maxBufferedBytes: 32 * 1024 })
  const token = await gw.issueToken()
  const slow = await connect()
  slow.socket.send(JSON.stringify({ accesstoken: token }))
  await until(() => slow.frames.length === 1)
  ;(slow.socket as unknown as { _socket: { pause(): void } })._socket.pause()
  let n = 0
  while (hub.clientCount > 0 && n < 60_000) {
    await gw.services.changes.record('ORDER_MODIFIED', sampleOrder(1 + (n++ % 500), gw.clock.now(), { locationName: (n % 90) + 1 }))
    if (n % 500 === 0) await new Promise((resolve) => setImmediate(resolve))
  }
  t.equal(hub.clientCount, 0, `dropped after ${n} changes`)
  t.match(gw.logs.text(), /too slow/)
})

t.test('200 subscribers all receive every event, in seq order', async (t) => {
  // All from one address with one token, all open before any authenticates: allowed here on purpose.
  const { gw, connect } = await setup(t, { maxUnauthenticated: 200, maxUnauthenticatedPerAddress: 200, maxClientsPerToken: 200 })
  const token = await gw.issueToken()
  const clients: Awaited<ReturnType<typeof connect>>[] = []
  for (let i = 0; i < 200; i++) clients.push(await connect())
  for (const c of clients) c.socket.send(JSON.stringify({ accesstoken: token }))
  await until(() => clients.every((c) => c.frames.length === 1), 'snapshots')
  const first = gw.services.changes.lastSeq + 1
  for (let i = 1; i <= 25; i++) await gw.services.changes.record('ORDER_CREATED', sampleOrder(i, gw.clock.now()))
  await until(() => clients.every((c) => c.frames.length === 26), 'every event')
  const expected = Array.from({ length: 25 }, (_, i) => first + i)
  t.ok(clients.every((c) => JSON.stringify(c.frames.slice(1).map((f) => f.seq)) === JSON.stringify(expected)))
})

/** An open WebSocket from `from` (a 127.x address standing in for a LAN client), or its refusal status (a refusal the document does not describe fails). */
function open(port: number, from: string): Promise<{ socket?: WebSocket; refused?: number }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/api/v2/websocket`, { localAddress: from })
    socket.on('error', () => undefined)
    socket.once('open', () => resolve({ socket }))
    socket.once('unexpected-response', async (_req, res) => {
      const problem = await incomingProblem('GET', '/api/v2/websocket', res)
      if (problem) reject(new Error(problem))
      else resolve({ refused: res.statusCode })
    })
  })
}

t.test('idle unauthenticated connections never keep a board out', async (t) => {
  const { gw, hub, port, connect } = await setup(t, { maxClients: 5, maxUnauthenticated: 12, maxUnauthenticatedPerAddress: 4 })
  const token = await gw.issueToken()
  const idle: WebSocket[] = []
  t.teardown(() => {
    for (const socket of idle) socket.terminate()
  })
  // Four addresses open more connections than they may and never authenticate: each new one
  // closes its address's oldest.
  for (let address = 2; address <= 5; address++) {
    for (let i = 0; i < 6; i++) {
      const { socket, refused } = await open(port, `127.0.0.${address}`)
      t.ok(socket, `accepted (${refused ?? 101})`)
      if (socket) idle.push(socket)
    }
  }
  await until(() => idle.filter((socket) => socket.readyState === WebSocket.OPEN).length <= 12, 'the oldest of each address closed')
  t.ok(hub.clientCount <= 12, `${hub.clientCount} unauthenticated connections held, no more than the cap`)
  // Boards from another address get in and authenticate, up to the subscribers' cap.
  const boards = []
  for (let i = 0; i < 5; i++) {
    const board = await connect()
    board.socket.send(JSON.stringify({ accesstoken: token }))
    await until(() => board.frames.length === 1)
    t.match(board.frames[0], { type: 'ACTIVE_ORDERS' }, `board ${i + 1} authenticated`)
    boards.push(board)
  }
  t.ok(
    idle.some((socket) => socket.readyState !== WebSocket.OPEN),
    'the oldest idle connections made room',
  )
  const sixth = await open(port, '127.0.0.1')
  t.equal(sixth.refused, 503, 'a sixth subscriber is over maxClients')
  const held = hub.clientCount
  boards[0].socket.close()
  await boards[0].closed
  await until(() => hub.clientCount === held - 1)
  const again = await open(port, '127.0.0.1')
  t.ok(again.socket, 'a closed subscriber frees its place')
  again.socket?.terminate()
})

t.test('a board behind the same address as a device flooding upgrades gets in and stays', async (t) => {
  const { gw, hub, port } = await setup(t, { maxUnauthenticatedPerAddress: 4 })
  const token = await gw.issueToken()
  const idle: WebSocket[] = []
  t.teardown(() => {
    for (const socket of idle) socket.terminate()
  })
  const flood = async (count: number) => {
    for (let i = 0; i < count; i++) {
      const { socket } = await open(port, '127.0.0.7')
      if (socket) idle.push(socket)
    }
  }
  await flood(4)
  const { socket: board } = await open(port, '127.0.0.7')
  t.ok(board, 'the upgrade from the crowded address is accepted')
  const frames: any[] = []
  board!.on('message', (data) => {
    const frame = JSON.parse(data.toString())
    t.equal(serverFrameProblem(frame), undefined, 'the frame is one the document describes')
    frames.push(frame)
  })
  board!.send(JSON.stringify({ accesstoken: token }))
  await until(() => frames.length === 1, 'snapshot')
  t.match(frames[0], { type: 'ACTIVE_ORDERS' })
  await flood(8)
  await roundTrip(board!)
  t.equal(board!.readyState, WebSocket.OPEN, 'authenticated: no longer counted among the idle ones, never closed for them')
  t.ok(hub.clientCount <= 5, `${hub.clientCount} held: 4 waiting and the board`)
  board!.terminate()
})

t.test('the upgrade is refused to another site (403 -39) and to a foreign Host (421 -41)', async (t) => {
  const { port } = await setup(t)
  const attempt = (headers: Record<string, string>) =>
    new Promise<number>((resolve) => {
      const socket = new WebSocket(`ws://127.0.0.1:${port}/api/v2/websocket`, { headers })
      socket.on('error', () => undefined)
      socket.once('open', () => (socket.terminate(), resolve(101)))
      socket.once('unexpected-response', async (_req, res) => {
        t.equal(await incomingProblem('GET', '/api/v2/websocket', res), undefined, 'the refusal is the documented one')
        resolve(res.statusCode!)
      })
    })
  t.equal(await attempt({ origin: 'http://evil.example' }), 403)
  t.equal(await attempt({ host: 'rebound.example' }), 421)
  t.equal(await attempt({ origin: `http://127.0.0.1:${port}` }), 101, "the gateway's own board")
})

t.test('a connection that authenticates when every subscriber place is taken is closed with 1013', async (t) => {
  const { gw, connect } = await setup(t, { maxClients: 1 })
  const token = await gw.issueToken()
  const waiting = await connect()
  const first = await connect()
  first.socket.send(JSON.stringify({ accesstoken: token }))
  await until(() => first.frames.length === 1)
  waiting.socket.send(JSON.stringify({ accesstoken: token }))
  t.equal(await waiting.closed, 1013)
  t.match(waiting.frames, [{ status: 503, message: 'Too many WebSocket clients' }])
})
