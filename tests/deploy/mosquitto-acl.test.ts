// deploy/mosquitto/ as shipped, on a real Mosquitto (only its file paths and port changed):
// TLS only, one account per site, a site publishes only under its own siteId, headquarters
// only reads and asks for replays, a site reads only the replay requests to it. A gateway's
// own fleet bridge, with its site's account, gets through, and replays when HQ asks.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { connect, type MqttClient } from 'mqtt'
import { makePki } from '../lib/fleet/certs.ts'
import { fleetService, order } from '../lib/fleet/fixtures.ts'
import { startBroker } from '../lib/fleet/mosquitto.ts'
import { until } from '../helpers/until.ts'

const deployDir = path.resolve(import.meta.dirname, '../../deploy/mosquitto')
const prefix = 'tracker-gateway'

t.test('the shipped ACL: a site cannot publish under another site, HQ cannot publish', async (t) => {
  const dir = t.testdir()
  const pki = makePki(dir)
  const passwd = path.join(dir, 'passwd')
  const accounts = { 'paris-11': 'pw-paris', 'lyon-2': 'pw-lyon', hq: 'pw-hq' }
  Object.entries(accounts).forEach(([user, password], i) => {
    execFileSync('mosquitto_passwd', ['-b', ...(i === 0 ? ['-c'] : []), passwd, user, password], { stdio: 'ignore' })
  })
  const shipped = readFileSync(path.join(deployDir, 'tracker-hq.conf'), 'utf8')
  const lines = shipped
    .split('\n')
    .filter((line) => line.trim() && !line.startsWith('#') && !/^(listener|allow_anonymous) /.test(line))
    .map((line) =>
      line
        .replace('/etc/mosquitto/tracker-hq/acl', path.join(deployDir, 'acl'))
        .replace('/etc/mosquitto/tracker-hq/passwd', passwd)
        .replace('/etc/mosquitto/tracker-hq/ca.crt', pki.ca)
        .replace('/etc/mosquitto/tracker-hq/broker.crt', pki.serverCert)
        .replace('/etc/mosquitto/tracker-hq/broker.key', pki.serverKey),
    )
  t.notOk(
    lines.some((line) => line.includes('/etc/')),
    'every path replaced',
  )
  const broker = await startBroker({ dir, anonymous: false, lines }, 'mqtts')
  t.teardown(() => broker.stop())

  const clients: MqttClient[] = []
  t.teardown(() => Promise.all(clients.map((c) => c.endAsync(true))))
  const as = async (username: string, password: string) => {
    const client = connect(broker.url, {
      username,
      password,
      ca: readFileSync(pki.ca),
      protocolVersion: 4,
      reconnectPeriod: 0,
      clientId: `${username}-${clients.length}`,
    })
    clients.push(client)
    await new Promise<void>((resolve, reject) => {
      client.once('connect', () => resolve())
      client.once('error', reject)
    })
    return client
  }

  // Headquarters as it subscribes (shared subscription).
  const hq = await as('hq', accounts.hq)
  const received: string[] = []
  hq.on('message', (topic, payload) => received.push(`${topic} ${payload}`))
  await hq.subscribeAsync(
    ['events', 'history', 'status'].map((c) => `$share/hq/${prefix}/+/${c}`),
    { qos: 1 },
  )

  // A gateway's own bridge with its site's account publishes its changes.
  const { service, changes } = await fleetService({
    enabled: true,
    brokerUrl: broker.url,
    ca: pki.ca,
    username: 'paris-11',
    password: accounts['paris-11'],
    siteId: 'paris-11',
    topicPrefix: prefix,
  })
  service.start()
  t.teardown(() => service.stop())
  await changes.record('ORDER_CREATED', order(1))
  await until(() => received.some((m) => m.startsWith(`${prefix}/paris-11/events `)), "the bridge's change reaches HQ")
  t.ok(
    received.some((m) => m.startsWith(`${prefix}/paris-11/status `)),
    'and its status',
  )

  // Paris's account writing under Lyon, HQ's account writing anything: Mosquitto drops the
  // message and closes the connection, having handled it (so nothing can arrive later).
  const refused = async (username: string, password: string, topic: string, payload: string, retain = false) => {
    const client = await as(username, password)
    let closed = false
    client.once('close', () => (closed = true))
    client.publish(topic, payload, { qos: 1, retain })
    // Closed by the broker; or delivered (the ACL let it through: the checks below fail).
    await until(() => closed || received.some((m) => m.endsWith(` ${payload}`)), `the broker's answer to ${username} writing ${topic}`)
  }
  await refused('paris-11', accounts['paris-11'], `${prefix}/lyon-2/events`, '{"forged":true}')
  await refused('paris-11', accounts['paris-11'], `${prefix}/lyon-2/status`, '{"forged":true}', true)
  await refused('hq', accounts.hq, `${prefix}/lyon-2/events`, '{"fromHq":true}')
  const lyon = await as('lyon-2', accounts['lyon-2'])
  await lyon.publishAsync(`${prefix}/lyon-2/events`, '{"own":true}', { qos: 1 })
  await until(() => received.some((m) => m.includes('"own":true')), "lyon's own message")
  t.notOk(
    received.some((m) => m.includes('forged')),
    "a site writing under another's id is refused",
  )
  t.notOk(
    received.some((m) => m.includes('fromHq')),
    'HQ cannot publish',
  )
  // A new subscriber gets the retained statuses: Lyon's forged one is not among them.
  const late = await as('hq', accounts.hq)
  const retained: string[] = []
  late.on('message', (topic, payload) => retained.push(`${topic} ${payload}`))
  await late.subscribeAsync(`${prefix}/+/status`, { qos: 1 })
  await until(() => retained.length >= 1, "paris's retained status")
  t.notOk(
    retained.some((m) => m.includes('forged')),
    'no forged retained status',
  )

  // HQ asks Paris's bridge for a replay: allowed both ways, and the change comes again.
  const before = received.filter((m) => m.startsWith(`${prefix}/paris-11/events `)).length
  await hq.publishAsync(`${prefix}/paris-11/replay`, JSON.stringify({ from: 1, to: 1 }), { qos: 1 })
  await until(() => received.filter((m) => m.startsWith(`${prefix}/paris-11/events `)).length > before, 'the bridge replays for HQ')

  // A site cannot ask another (nor itself) for a replay, nor read another's requests.
  const lyonRequests: string[] = []
  const lyonReader = await as('lyon-2', accounts['lyon-2'])
  lyonReader.on('message', (topic, payload) => lyonRequests.push(`${topic} ${payload}`))
  await lyonReader.subscribeAsync(`${prefix}/lyon-2/replay`, { qos: 1 })
  const parisSpy: string[] = []
  const parisReader = await as('paris-11', accounts['paris-11'])
  parisReader.on('message', (topic) => parisSpy.push(topic))
  await parisReader.subscribeAsync(`${prefix}/lyon-2/replay`, { qos: 1 })
  const forger = await as('paris-11', accounts['paris-11'])
  let forgerClosed = false
  forger.once('close', () => (forgerClosed = true))
  forger.publish(`${prefix}/lyon-2/replay`, '{"from":1,"to":99,"forged":true}', { qos: 1 })
  await until(() => forgerClosed || lyonRequests.length > 0, "the broker's answer to paris asking lyon for a replay")
  await hq.publishAsync(`${prefix}/lyon-2/replay`, '{"from":1,"to":2}', { qos: 1 })
  await until(() => lyonRequests.length > 0, "HQ's request reaches lyon")
  t.same(lyonRequests, [`${prefix}/lyon-2/replay {"from":1,"to":2}`], "lyon gets HQ's request only, not the forged one")
  t.same(parisSpy, [], "paris cannot read lyon's requests")

  // A site reads nothing else, not even another site's retained status.
  const spyReceived: string[] = []
  lyon.on('message', (topic) => spyReceived.push(topic))
  await lyon.subscribeAsync(`${prefix}/#`, { qos: 1 })
  const paris = await as('paris-11', accounts['paris-11'])
  await paris.publishAsync(`${prefix}/paris-11/events`, '{"late":true}', { qos: 1 })
  await until(() => received.some((m) => m.includes('"late":true')), "paris's message at HQ")
  t.same(spyReceived, [], 'a site cannot read the others')

  // Wrong password, no TLS: refused.
  await t.rejects(as('lyon-2', 'wrong'), /Not authorized|Bad username or password/i)
  const plain = connect(broker.url.replace('mqtts', 'mqtt'), { username: 'lyon-2', password: accounts['lyon-2'], reconnectPeriod: 0, connectTimeout: 3000 })
  clients.push(plain)
  await t.rejects(
    new Promise((resolve, reject) => {
      plain.once('connect', resolve)
      plain.once('error', reject)
      plain.once('close', () => reject(new Error('closed')))
    }),
    'a plain connection to the TLS listener fails',
  )
})
