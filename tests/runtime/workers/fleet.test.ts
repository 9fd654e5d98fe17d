// The fleet bridge end to end: a gateway process (runtime/cli.ts start) feeding a real
// Mosquitto, through a broker outage and a SIGKILL of the gateway. Headquarters (a persistent
// MQTT session) must see every acknowledged change and every summary, in seq order;
// duplicates are allowed and carry the seq of their first copy.
import t from 'tap'
import { spawn, type ChildProcess } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { sendControl } from '../../../runtime/control/control.ts'
import { firstArrivals, subscriber } from '../../lib/fleet/fixtures.ts'
import { startBroker } from '../../lib/fleet/mosquitto.ts'
import { until } from '../../helpers/until.ts'
import { checkAnswersFrom } from '../../helpers/checked-origins.ts'

const root = fileURLToPath(new URL('../../..', import.meta.url))
const cli = path.join(root, 'runtime/cli.ts')
const prefix = 'chain'
const siteId = 'site-e2e'

interface GatewayProcess {
  child: ChildProcess
  port: number
  logs: Record<string, any>[]
}

async function startGatewayProcess(configFile: string, dataDir: string): Promise<GatewayProcess> {
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', cli, 'start', '--config', configFile, '--data-dir', dataDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LOG_LEVEL: 'info' },
  })
  const logs: Record<string, any>[] = []
  let stderr = ''
  let buffered = ''
  child.stderr!.on('data', (chunk) => (stderr += chunk))
  child.stdout!.on('data', (chunk) => {
    buffered += chunk
    const lines = buffered.split('\n')
    buffered = lines.pop()!
    for (const line of lines) {
      try {
        logs.push(JSON.parse(line))
      } catch {
        // not a log line
      }
    }
  })
  const exited = new Promise<never>((_resolve, reject) => child.once('exit', (code) => reject(new Error(`gateway exited ${code}: ${stderr}`))))
  exited.catch(() => undefined)
  await Promise.race([until(() => logs.some((line) => line.msg === 'gateway started'), 'gateway start'), exited])
  const port = logs.find((line) => line.msg === 'gateway started')!.port as number
  child.once('exit', checkAnswersFrom(`http://127.0.0.1:${port}`))
  return { child, port, logs }
}

async function kill9(gateway: GatewayProcess): Promise<void> {
  if (gateway.child.exitCode !== null || gateway.child.signalCode !== null) return
  const exited = new Promise((resolve) => gateway.child.once('exit', resolve))
  gateway.child.kill('SIGKILL')
  await exited
}

async function api(gateway: GatewayProcess, method: string, target: string, token: string, body?: unknown) {
  const response = await fetch(`http://127.0.0.1:${gateway.port}${target}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  })
  const json = (await response.json()) as Record<string, any>
  if (response.status >= 300) throw new Error(`${method} ${target}: ${response.status} ${JSON.stringify(json)}`)
  return json
}

t.test('every change and summary reaches headquarters in seq order across an outage and a SIGKILL', async (t) => {
  const dir = t.testdir({ data: {} })
  const dataDir = path.join(dir, 'data')
  const broker = await startBroker({ dir })
  t.teardown(() => broker.stop())
  const configFile = path.join(dir, 'gateway.config.json')
  writeFileSync(
    configFile,
    JSON.stringify({
      port: 0,
      host: '127.0.0.1',
      mdns: { enabled: false },
      fleet: { enabled: true, brokerUrl: broker.url, siteId, topicPrefix: prefix, reconnectMs: 100, maxReconnectMs: 400 },
    }),
  )
  // Headquarters: a persistent session, so what is published while it reconnects is kept.
  const hq = await subscriber(broker.url, `${prefix}/+/#`, { clientId: 'hq-e2e', clean: false })
  t.teardown(() => hq.close())

  let gateway = await startGatewayProcess(configFile, dataDir)
  t.teardown(() => kill9(gateway))
  await sendControl(dataDir, 'button.press')
  const generated = await api(gateway, 'GET', '/api/v2/accesstoken/generate?name=fleet-test', '')
  const token = generated.token.token as string

  // What the gateway acknowledged, in the order it did: [change, order name].
  const expected: [string, number][] = []
  const create = async (name: number) => {
    await api(gateway, 'POST', '/api/v2/activeorders', token, { name, orderType: 'TO_GO' })
    expected.push(['ORDER_CREATED', name])
  }
  const clear = async (name: number) => {
    await api(gateway, 'DELETE', `/api/v2/activeorders/${name}`, token)
    expected.push(['ORDER_CLEARED', name])
  }

  // 1. A burst while everything is up.
  for (let name = 1; name <= 10; name++) await create(name)
  for (let name = 1; name <= 10; name++) await clear(name)
  await until(() => firstArrivals(hq.on('/events').map((m) => m.body.seq)).distinct.length >= 20, 'first burst at hq')

  // 2. The broker goes away; the gateway keeps taking orders.
  await broker.stop()
  for (let name = 11; name <= 20; name++) await create(name)
  for (let name = 11; name <= 15; name++) await clear(name)
  const whileDown = (await api(gateway, 'GET', '/api/v2/gateway', token)).gatewayStatus.fleet
  t.equal(whileDown.backlog, 15, 'GET /api/v2/gateway reports the backlog while the broker is down')
  t.not(whileDown.state, 'connected')

  // 3. The gateway dies hard with that backlog; both come back.
  await kill9(gateway)
  await broker.start()
  gateway = await startGatewayProcess(configFile, dataDir)
  for (let name = 21; name <= 25; name++) await create(name)
  for (let name = 16; name <= 25; name++) await clear(name)

  const cleared = expected.filter(([change]) => change === 'ORDER_CLEARED').length
  await until(
    () =>
      firstArrivals(hq.on('/events').map((m) => m.body.seq)).distinct.length >= expected.length &&
      firstArrivals(hq.on('/history').map((m) => m.body.seq)).distinct.length >= cleared,
    'every change at hq',
  )

  const events = firstArrivals(hq.on('/events').map((m) => m.body.seq))
  t.same(events.outOfOrder, [], 'no change arrived for the first time after a later one')
  const firstCopy = new Map<number, Record<string, any>>()
  for (const message of hq.on('/events')) if (!firstCopy.has(message.body.seq)) firstCopy.set(message.body.seq, message.body)
  t.same(
    events.distinct.map((seq) => [firstCopy.get(seq)!.change, Number(firstCopy.get(seq)!.name)]),
    expected,
    'exactly the acknowledged changes, in the order they were made',
  )
  for (const message of hq.on('/events')) {
    t.same(message.body, firstCopy.get(message.body.seq), `a duplicate of seq ${message.body.seq} is the same message`)
  }

  const history = firstArrivals(hq.on('/history').map((m) => m.body.seq))
  t.same(history.outOfOrder, [])
  const clearedSeqs = events.distinct.filter((seq) => firstCopy.get(seq)!.change === 'ORDER_CLEARED')
  t.same(history.distinct, clearedSeqs, 'one summary per cleared order, with the seq of its clearing')
  const summaries = new Map(hq.on('/history').map((m) => [m.body.seq, m.body]))
  t.same(
    clearedSeqs.map((seq) => summaries.get(seq)!.name),
    expected.filter(([change]) => change === 'ORDER_CLEARED').map(([, name]) => String(name)),
  )
  t.ok(hq.received.every((m) => m.topic.startsWith(`${prefix}/${siteId}/`)))

  // 4. An operator's tail sees the live stream of this site.
  const tail = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', cli, 'fleet', 'tail', '--site', siteId, '--config', configFile], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  t.teardown(() => tail.kill('SIGKILL'))
  let tailed = ''
  tail.stdout!.on('data', (chunk) => (tailed += chunk))
  await until(() => tailed.includes(`# subscribed to ${prefix}/${siteId}/#`), 'tail subscribed')
  await create(26)
  await until(() => tailed.includes(`${prefix}/${siteId}/events `), 'tail line')
  const line = tailed.split('\n').find((l) => l.startsWith(`${prefix}/${siteId}/events `))!
  t.match(JSON.parse(line.slice(line.indexOf(' ') + 1)), { change: 'ORDER_CREATED', name: '26', siteId })
  t.match(tailed, `${prefix}/${siteId}/status `, 'the retained status shows at once')
  const tailExit = new Promise<number | null>((resolve) => tail.once('exit', resolve))
  tail.kill('SIGINT')
  t.equal(await tailExit, 0, 'Ctrl-C ends the tail cleanly')

  // The status says the (simulated) radio works: published again once it came up, if the
  // bridge connected first.
  await until(() => hq.on('/status').some((m) => m.body.online === true && m.body.radioUp === true), 'radio up in the status')
  t.match(hq.on('/status').findLast((m) => m.body.online === true)!.body, { radioUp: true, radioKind: 'simulated' })

  // 5. A gateway that dies while connected is marked offline by its last will.
  const statusCount = hq.on('/status').length
  await kill9(gateway)
  await until(
    () =>
      hq
        .on('/status')
        .slice(statusCount)
        .some((m) => m.body.online === false),
    'last will',
  )
  t.match(hq.on('/status').at(-1)!.body, { siteId, online: false, reason: 'connection lost' })
})
