// A screen's settings changed by an admin from another board reach that screen at once over
// the live feed (issue 43): a SCREEN_SETTINGS frame to every subscriber signed in with that
// token name, and to no other.
import t from 'tap'
import { WebSocket } from 'ws'
import { createHttpHost } from '../../../runtime/host/http.ts'
import { WsHub } from '../../../runtime/host/ws.ts'
import { testGateway } from '../../helpers/gateway.ts'
import { serverFrameProblem } from '../../helpers/documented-responses.ts'
import { until } from '../../helpers/until.ts'

t.test("an admin's change to a screen's settings goes to that screen's subscribers only", async (t) => {
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
  const issue = async (name: string, scope: string) =>
    (await gw.json(`POST /api/v2/accesstoken/generate?name=${name}&scope=${scope}`, { token: admin })).body.token.token as string
  /** A subscriber: its frames, once it has its snapshot. */
  const subscribe = async (token: string) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/api/v2/websocket`)
    sockets.push(socket)
    const frames: { type?: string; screen?: unknown }[] = []
    socket.on('message', (data) => {
      const frame = JSON.parse(data.toString())
      const problem = serverFrameProblem(frame)
      if (problem) t.fail(problem)
      frames.push(frame)
    })
    socket.on('error', () => {})
    await new Promise<void>((resolve) => socket.once('open', () => resolve()))
    socket.send(JSON.stringify({ accesstoken: token }))
    await until(() => frames.length > 0, 'the snapshot')
    return frames
  }
  // The wall screen in two browsers (a token each, the same name; one may only read), and the bar's screen.
  const wall = await subscribe(await issue('wall', 'screen'))
  const wallDisplay = await subscribe(await issue('wall', 'read'))
  const bar = await subscribe(await issue('bar', 'screen'))

  await gw.json('POST /api/v2/board/settings', { token: await issue('wall', 'screen'), body: { filter: 'to-go' } })
  const set = await gw.json('POST /api/v2/board/screens/wall', { token: admin, body: { theme: 'light' } })
  t.equal(set.status, 200)
  const expected = { type: 'SCREEN_SETTINGS', screen: { name: 'wall', settings: { filter: 'to-go', theme: 'light' } } }
  for (const frames of [wall, wallDisplay]) {
    await until(() => frames.length >= 3, "the wall screen's two settings frames")
    t.same(
      frames.slice(1),
      [{ type: 'SCREEN_SETTINGS', screen: { name: 'wall', settings: { filter: 'to-go' } } }, expected],
      'every setting, after each change',
    )
  }
  // Frames keep their order: once the bar's screen has the next order change, it got nothing before it.
  await gw.json('POST /api/v2/activeorders', { token: admin, body: { name: 5, orderType: 'TO_GO' } })
  await until(() => bar.length >= 2, "the bar screen's order frame")
  t.same(
    bar.map((frame) => frame.type),
    ['ACTIVE_ORDERS', 'ORDER_CREATED'],
    "another screen's settings are not sent to the bar",
  )
})
