// Fair shares on a restaurant's LAN (issue 41): the gateway process on a non-loopback address
// of a network namespace this test makes (nothing leaves it), hostile devices and honest
// clients on other addresses of it (tests/helpers/netns-gateway.ts). A few devices, whatever
// they send, cannot take what a new client, a signed-in board or a second POS needs. The
// machine may be loaded: each check allows a few attempts and reports them.
import t from 'tap'
import { sendControl } from '../../../runtime/control/control.ts'
import { netnsUnavailable } from '../../helpers/netns.ts'
import { lanClient, lanFlood, lanGateway, type LanClient } from '../../helpers/netns-gateway.ts'
import { until } from '../../helpers/until.ts'

const skip = netnsUnavailable()
const gatewayAddress = '10.78.0.1'
const attackers = Array.from({ length: 8 }, (_, i) => `10.78.1.${i + 1}`)
const newcomer = '10.78.2.1'
const boardAddress = '10.78.2.2'
const posAddress = '10.78.2.3'
const silentPort = 9099

type Result = Record<string, any>
const describe = (tries: Result[]) => tries.map((a) => `${a.status ?? a.error} in ${a.ms} ms`).join(', ')

/** Up to `attempts` tries; the first with status 200, and every try. */
async function servedWithin(attempts: number, attempt: () => Promise<Result>): Promise<{ served?: Result; tries: Result[] }> {
  const tries: Result[] = []
  for (let i = 0; i < attempts; i++) {
    const result = await attempt()
    tries.push(result)
    if (result.status === 200) return { served: result, tries }
  }
  return { tries }
}

t.test(
  'eight addresses holding every connection they can with slow requests: a new client, boards (HTTP, HTTPS) and a WebSocket board are served',
  { skip },
  async (t) => {
    const gw = await lanGateway(t, [gatewayAddress, ...attackers, newcomer, boardAddress])
    const client = lanClient(t, gw.ns)
    const token = await gw.token(client, boardAddress, 'board')
    const securePort = await gw.securePort()
    // Each attacking address listens where its registrations point and never answers: every
    // probe of the gateway waits for its whole timeout. Each connection keeps two requests
    // outstanding (pipelined, one more a second after each answer), so none ever idles.
    for (const address of attackers) await client.send({ kind: 'silent', host: address, port: silentPort })
    const hook = encodeURIComponent(`http://{address}:${silentPort}/hook`).replace('%7Baddress%7D', '{address}')
    const request = `GET /api/v1/register?http_client=${hook} HTTP/1.1\r\nHost: ${gatewayAddress}:${gw.port}\r\n\r\n`
    const flood = lanFlood(t, gw.ns, { host: gatewayAddress, port: gw.port, addresses: attackers, perAddress: 64, request, pipeline: 2, repeatMs: 1_000 })
    await until(() => flood.counts().connected >= 512 && flood.mostOpen() >= 480, 'the flood holding about 512 connections', 60_000)

    const fresh = await servedWithin(5, () => client.send({ kind: 'http', url: `${gw.url}/api/v2`, from: newcomer }))
    t.ok(fresh.served, `a client from a new address is served (${describe(fresh.tries)})`)
    const auth = { authorization: `Bearer ${token}` }
    const board = await servedWithin(5, () => client.send({ kind: 'http', url: `${gw.url}/api/v2/activeorders`, from: boardAddress, headers: auth }))
    t.ok(board.served, `a signed-in board is served (${describe(board.tries)})`)
    const behind = await servedWithin(5, () => client.send({ kind: 'http', url: `${gw.url}/api/v2/activeorders`, from: attackers[0], headers: auth }))
    t.ok(behind.served, `a signed-in board behind an attacking address is served (${describe(behind.tries)})`)
    const ws = await client.send({ kind: 'ws', url: `ws://${gatewayAddress}:${gw.port}/api/v2/websocket`, from: newcomer, token })
    t.match(ws.frames, [{ type: 'ACTIVE_ORDERS' }], `a WebSocket board authenticates and gets the snapshot (${JSON.stringify(ws.frames)})`)
    const secure = await servedWithin(5, () =>
      client.send({ kind: 'http', url: `https://${gatewayAddress}:${securePort}/api/v2/activeorders`, from: newcomer, headers: auth }),
    )
    t.ok(secure.served, `a board over HTTPS is served (${describe(secure.tries)})`)
    t.ok(flood.mostOpen() >= 480, `the flood held ${flood.mostOpen()} connections at once (${JSON.stringify(flood.counts())})`)
  },
)

/** Registers `url` with v1 from `from`, no credentials. */
const register = (client: LanClient, gatewayUrl: string, from: string, url: string) =>
  client.send({ kind: 'http', url: `${gatewayUrl}/api/v1/register?http_client=${encodeURIComponent(url)}`, from })

t.test('one address trying to take every v1 callback place: a second POS registers its own', { skip }, async (t) => {
  const gw = await lanGateway(t, [gatewayAddress, attackers[0]!, posAddress])
  const client = lanClient(t, gw.ns)
  const attacker = await client.send({ kind: 'receiver', host: attackers[0] })
  const pos = await client.send({ kind: 'receiver', host: posAddress })
  const answers: Result[] = []
  for (let i = 1; i <= 20; i++) answers.push(await register(client, gw.url, attackers[0]!, `http://${attackers[0]}:${attacker.port}/hook${i}`))
  const registered = answers.filter((answer) => answer.status === 200).length
  t.equal(registered, 4, `one address registers 4 of its 20 URLs (${answers.map((a) => a.status).join(' ')})`)
  t.same(
    JSON.parse(answers[19]!.body),
    {
      status: 409,
      message:
        'Too many callback URLs: at most 4 callback URLs per address without credentials; remove one (DELETE /api/v2/register) or register with a v2 token',
    },
    'the others: 409 in v1 shape, saying why',
  )
  const second = await register(client, gw.url, posAddress, `http://${posAddress}:${pos.port}/orders`)
  t.equal(second.status, 200, `the second POS registers its callback (${second.body})`)
  const listed = (await sendControl(gw.dataDir, 'webhooks.list')) as { url: string }[]
  t.equal(listed.length, 5, 'four of the first address, one of the POS')

  // Probes of one address run one at a time: a second registration while the first is
  // probed (a listener that never answers) is refused at once, not a second probe.
  const silent = await client.send({ kind: 'silent', host: posAddress })
  const both = await Promise.all(['slow', 'other'].map((hook) => register(client, gw.url, posAddress, `http://${posAddress}:${silent.port}/${hook}`)))
  t.same(
    both.map((answer) => answer.status).sort(),
    [404, 429],
    `one is probed (unreachable after its timeout), the other refused at once: ${both.map((a) => `${a.status} in ${a.ms} ms`).join(', ')}`,
  )
  const refused = both.find((answer) => answer.status === 429)!
  t.match(JSON.parse(refused.body), { status: 429, message: /being checked/ })
  t.ok(refused.ms < 1_500 || refused.ms < both.find((answer) => answer.status === 404)!.ms, 'refused without waiting for the probe')
})

t.test('one token holding its maximum of WebSockets: a board with another token is served', { skip }, async (t) => {
  const gw = await lanGateway(t, [gatewayAddress, attackers[0]!, boardAddress])
  const client = lanClient(t, gw.ns)
  const hoarder = await gw.token(client, attackers[0]!, 'hoarder')
  const second = await gw.token(client, attackers[0]!, 'second')
  const board = await gw.token(client, boardAddress, 'board')
  const url = `ws://${gatewayAddress}:${gw.port}/api/v2/websocket`
  const held = await client.send({ kind: 'ws', url, from: attackers[0], token: hoarder, count: 40 })
  const subscribed = held.frames.filter((frame: Result) => frame.type === 'ACTIVE_ORDERS').length
  t.equal(subscribed, 32, 'one token gets 32 WebSocket places')
  t.match(
    held.frames.find((frame: Result) => frame.type !== 'ACTIVE_ORDERS'),
    { status: 429, returnCode: -53, message: /at most 32 WebSocket connections per access token/ },
    'the others are told why',
  )
  const more = await client.send({ kind: 'ws', url, from: attackers[0], token: second, count: 20 })
  const alsoSubscribed = more.frames.filter((frame: Result) => frame.type === 'ACTIVE_ORDERS').length
  t.equal(alsoSubscribed, 16, 'another token from the same address: up to the 48 of the address')
  const turnedAway = more.frames.filter((frame: Result) => frame.type !== 'ACTIVE_ORDERS')
  t.ok(
    turnedAway.every((frame: Result) => frame.refused === 429 || (frame.returnCode === -53 && /per address/.test(frame.message))),
    `the others: 429 at the upgrade or -53 at authentication (${JSON.stringify(turnedAway)})`,
  )
  const served = await client.send({ kind: 'ws', url, from: boardAddress, token: board })
  t.match(served.frames, [{ type: 'ACTIVE_ORDERS' }], 'a board from another address gets its feed')
})

t.test('10,000 bad requests from one address add under 300 KB of log, naming the address with a count', { skip }, async (t) => {
  const gw = await lanGateway(t, [gatewayAddress, attackers[0]!])
  const client = lanClient(t, gw.ns)
  const before = gw.output().length
  const path = `/api/v2/${'x'.repeat(240)}`
  const burst = await client.send({ kind: 'burst', url: `${gw.url}${path}`, from: attackers[0], count: 10_000, concurrency: 8, timeoutMs: 60_000 })
  t.same(burst.statuses, { 404: 10_000 }, 'every one answered 404')
  // The log is written a moment after the answers (held and written together).
  await until(() => gw.output().includes(`"ip":"${attackers[0]}"`) || gw.output().length - before > 300 * 1024, 'the bad requests logged', 15_000)
  await new Promise((resolve) => setTimeout(resolve, 500))
  const added = gw.output().length - before
  t.ok(added < 300 * 1024, `${added} bytes of log for 10,000 bad requests`)
  const lines = gw
    .output()
    .slice(before)
    .split('\n')
    .filter((line) => line.includes(`"ip":"${attackers[0]}"`))
    .map((line) => JSON.parse(line) as Result)
  t.ok(
    lines.some((line) => line.count >= 5_000),
    `the count is shown (${lines.map((line) => line.count).join(', ')})`,
  )
})
