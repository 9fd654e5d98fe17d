// The WebSocket feed only reads, so it needs the least scope there is (issue 41: "the
// WebSocket needs at least read"): a token of every scope opens it and gets the snapshot and
// the changes. (The limits on WebSocket places are tests/runtime/host/ws.test.ts's.)
import t from 'tap'
import { WebSocket } from 'ws'
import { scopes } from '../../../lib/tokens/scopes.ts'
import { createHttpHost } from '../../../runtime/host/http.ts'
import { WsHub } from '../../../runtime/host/ws.ts'
import { testGateway } from '../../helpers/gateway.ts'
import { serverFrameProblem } from '../../helpers/documented-responses.ts'
import { until } from '../../helpers/until.ts'

t.test('a token of every scope opens the live feed', async (t) => {
  const gw = await testGateway()
  const host = createHttpHost(gw.router, gw.services.log)
  const hub = new WsHub(host.server, gw.services)
  hub.start()
  const port = await host.listen(0, '127.0.0.1')
  const sockets: WebSocket[] = []
  t.teardown(async () => {
    for (const socket of sockets) socket.terminate()
    await hub.stop()
    await host.close(100)
    gw.services.webhooks.close()
  })
  const admin = await gw.issueToken('office')
  await gw.json('POST /api/v2/activeorders', { token: admin, body: { name: 3, orderType: 'TO_GO' } })
  const feeds = []
  for (const scope of scopes) {
    const token = (await gw.json(`POST /api/v2/accesstoken/generate?name=feed-${scope}&scope=${scope}`, { token: admin })).body.token.token as string
    const socket = new WebSocket(`ws://127.0.0.1:${port}/api/v2/websocket`)
    sockets.push(socket)
    const frames: { type?: string; status?: number }[] = []
    socket.on('message', (data) => {
      const frame = JSON.parse(data.toString())
      const problem = serverFrameProblem(frame)
      if (problem) t.fail(problem)
      frames.push(frame)
    })
    socket.on('error', () => {})
    await new Promise<void>((resolve) => socket.once('open', () => resolve()))
    socket.send(JSON.stringify({ accesstoken: token }))
    feeds.push({ scope, frames })
  }
  for (const { scope, frames } of feeds) {
    await until(() => frames.length > 0, `the ${scope} token's first frame`)
    t.match(frames[0], { type: 'ACTIVE_ORDERS', count: 1 }, `${scope}: the snapshot`)
  }
  await gw.json('DELETE /api/v2/activeorders/3', { token: admin })
  for (const { scope, frames } of feeds) {
    await until(() => frames.some((frame) => frame.type === 'ORDER_CLEARED'), `the ${scope} token's change frame`)
    t.notOk(
      frames.some((frame) => frame.status !== undefined),
      `${scope}: no error frame`,
    )
  }
})
