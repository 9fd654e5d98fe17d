// deploy/mosquitto/ as shipped, on a real Mosquitto (only its file paths and port changed):
// TLS only, one account per site, a site publishes only under its own siteId, headquarters
// only reads, asks for replays and sends rollout commands, a site reads only the replay
// requests and rollout commands to it. A gateway's
// own fleet bridge, with its site's account, gets through, and replays when HQ asks.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import { connect, type MqttClient } from 'mqtt'
import { makeClientCert, makePki } from '../lib/fleet/certs.ts'
import { fleetService, order } from '../lib/fleet/fixtures.ts'
import { startBroker } from '../lib/fleet/mosquitto.ts'
import { until } from '../helpers/until.ts'

const deployDir = path.resolve(import.meta.dirname, '../../deploy/mosquitto')
const prefix = 'tracker-gateway'

/**
 * The shipped config and ACL on a real Mosquitto, with these accounts (user: password);
 * certificates: with its two commented lines for client certificates turned on.
 */
async function shippedBroker(t: Test, accounts: Record<string, string>, certificates = false) {
  const dir = t.testdir()
  const pki = makePki(dir)
  const passwd = path.join(dir, 'passwd')
  Object.entries(accounts).forEach(([user, password], i) => {
    execFileSync('mosquitto_passwd', ['-b', ...(i === 0 ? ['-c'] : []), passwd, user, password], { stdio: 'ignore' })
  })
  const shipped = readFileSync(path.join(deployDir, 'tracker-hq.conf'), 'utf8')
  const lines = shipped
    .split('\n')
    .map((line) => (certificates && /^#(require_certificate|use_identity_as_username) true$/.test(line) ? line.slice(1) : line))
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

  return { broker, pki, dir }
}

t.test('the shipped ACL: a site cannot publish under another site, HQ cannot publish', async (t) => {
  const accounts = { 'paris-11': 'pw-paris', 'lyon-2': 'pw-lyon', 'hq-1': 'pw-hq-1', 'hq-2': 'pw-hq-2' }
  const { broker, pki } = await shippedBroker(t, accounts)
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
  const hq = await as('hq-1', accounts['hq-1'])
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

  // HQ asks Paris's bridge for a replay: allowed both ways, and the change comes again.
  const before = received.filter((m) => m.startsWith(`${prefix}/paris-11/events `)).length
  await hq.publishAsync(`${prefix}/paris-11/replay`, JSON.stringify({ from: 1, to: 1 }), { qos: 1 })
  await until(() => received.filter((m) => m.startsWith(`${prefix}/paris-11/events `)).length > before, 'the bridge replays for HQ')

  // The broker takes a site's client id from its account, so the connections below as
  // paris-11 would take the bridge's place: it has done its part.
  await service.stop()

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
  await refused('hq-2', accounts['hq-2'], `${prefix}/lyon-2/events`, '{"fromHq":true}')
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
  const late = await as('hq-2', accounts['hq-2'])
  const retained: string[] = []
  late.on('message', (topic, payload) => retained.push(`${topic} ${payload}`))
  await late.subscribeAsync(`${prefix}/+/status`, { qos: 1 })
  await until(() => retained.length >= 1, "paris's retained status")
  t.notOk(
    retained.some((m) => m.includes('forged')),
    'no forged retained status',
  )

  // A site cannot ask another (nor itself) for a replay, nor read another's requests. (One
  // connection per site at a time: the broker takes the client id from the account.)
  const lyonRequests: string[] = []
  lyon.on('message', (topic, payload) => lyonRequests.push(`${topic} ${payload}`))
  await lyon.subscribeAsync(`${prefix}/lyon-2/replay`, { qos: 1 })
  const parisSpy: string[] = []
  const parisReader = await as('paris-11', accounts['paris-11'])
  parisReader.on('message', (topic) => parisSpy.push(topic))
  await parisReader.subscribeAsync(`${prefix}/lyon-2/replay`, { qos: 1 })
  await hq.publishAsync(`${prefix}/lyon-2/replay`, '{"from":1,"to":2}', { qos: 1 })
  await until(() => lyonRequests.length > 0, "HQ's request reaches lyon")
  const forger = await as('paris-11', accounts['paris-11'])
  let forgerClosed = false
  forger.once('close', () => (forgerClosed = true))
  forger.publish(`${prefix}/lyon-2/replay`, '{"from":1,"to":99,"forged":true}', { qos: 1 })
  await until(() => forgerClosed || lyonRequests.length > 1, "the broker's answer to paris asking lyon for a replay")
  t.same(lyonRequests, [`${prefix}/lyon-2/replay {"from":1,"to":2}`], "lyon gets HQ's request only, not the forged one")
  t.same(parisSpy, [], "paris cannot read lyon's requests")

  // Rollout commands (retained): only HQ writes them, a site reads only its own; a site
  // cannot write one, not even to itself (it would upgrade to what it chose).
  const lyonCommands: string[] = []
  lyon.on('message', (topic, payload) => topic.endsWith('/rollout') && lyonCommands.push(String(payload)))
  await lyon.subscribeAsync(`${prefix}/lyon-2/rollout`, { qos: 1 })
  await hq.publishAsync(`${prefix}/lyon-2/rollout`, '{"rolloutId":1,"action":"stand-down"}', { qos: 1, retain: true })
  await until(() => lyonCommands.length > 0, "HQ's rollout command reaches lyon")
  const commandSpy: string[] = []
  const parisCommands = await as('paris-11', accounts['paris-11'])
  parisCommands.on('message', (topic) => commandSpy.push(topic))
  await parisCommands.subscribeAsync(`${prefix}/lyon-2/rollout`, { qos: 1 })
  for (const topic of [`${prefix}/lyon-2/rollout`, `${prefix}/paris-11/rollout`]) {
    const forger = await as('paris-11', accounts['paris-11'])
    let closed = false
    forger.once('close', () => (closed = true))
    forger.publish(topic, '{"rolloutId":9,"action":"upgrade","forged":true}', { qos: 1, retain: true })
    await until(() => closed || lyonCommands.length > 1, `the broker's answer to paris writing ${topic}`)
  }
  t.same(lyonCommands, ['{"rolloutId":1,"action":"stand-down"}'], "lyon gets HQ's rollout command only")
  t.same(commandSpy, [], "paris cannot read lyon's rollout commands")
  const parisOwn: string[] = []
  const parisAgain = await as('paris-11', accounts['paris-11'])
  parisAgain.on('message', (_topic, payload) => parisOwn.push(String(payload)))
  await parisAgain.subscribeAsync(`${prefix}/paris-11/rollout`, { qos: 1 })
  await hq.publishAsync(`${prefix}/paris-11/rollout`, '{"rolloutId":2,"action":"stand-down"}', { qos: 1, retain: true })
  await until(() => parisOwn.length > 0, "HQ's command to paris")
  t.same(parisOwn, ['{"rolloutId":2,"action":"stand-down"}'], 'no command forged by a site was kept for it')

  // A site reads nothing else, not even another site's retained status.
  const spyReceived: string[] = []
  // (Its own retained rollout command, which it may read, comes again with this subscription.)
  lyon.on('message', (topic) => topic.startsWith(`${prefix}/lyon-2/`) || spyReceived.push(topic))
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

t.test("the shipped config binds client ids to accounts: a site's password cannot take another client's id", async (t) => {
  const accounts = { 'paris-11': 'pw-paris', 'lyon-2': 'pw-lyon', 'hq-1': 'pw-hq-1' }
  const { broker, pki } = await shippedBroker(t, accounts)
  const clients: MqttClient[] = []
  t.teardown(() => Promise.all(clients.map((c) => c.endAsync(true))))
  const as = async (username: string, clientId: string, clean = true) => {
    const client = connect(broker.url, {
      username,
      password: accounts[username as keyof typeof accounts],
      ca: readFileSync(pki.ca),
      protocolVersion: 4,
      reconnectPeriod: 0,
      clientId,
      clean,
    })
    clients.push(client)
    const connack = await new Promise<{ sessionPresent: boolean }>((resolve, reject) => {
      client.once('connect', (packet) => resolve(packet))
      client.once('error', reject)
    })
    return { client, sessionPresent: connack.sessionPresent }
  }

  // Lyon's gateway (the client id its bridge uses), connected.
  const { client: lyon } = await as('lyon-2', 'tracker-gateway-lyon-2')
  let lyonClosed = false
  lyon.once('close', () => (lyonClosed = true))
  // Paris's password under Lyon's client id (the bridge's, and the bare siteId) and under HQ's.
  await as('paris-11', 'tracker-gateway-lyon-2')
  await as('paris-11', 'lyon-2')
  // Lyon's connection is still there: a message round trip through it (or its close).
  await Promise.race([lyon.publishAsync(`${prefix}/lyon-2/events`, '{"still":true}', { qos: 1 }), until(() => lyonClosed, 'lyon acknowledged or closed')])
  t.notOk(lyonClosed, "lyon's gateway is not disconnected by paris's password under its id")
  if (lyonClosed) return

  // HQ's persistent session holds a message while its instance is away ...
  const { client: hq } = await as('hq-1', 'hq-1', false)
  await hq.subscribeAsync(`$share/hq/${prefix}/+/events`, { qos: 1 })
  await hq.endAsync()
  await lyon.publishAsync(`${prefix}/lyon-2/events`, '{"waiting":true}', { qos: 1 })
  // ... and a clean session under HQ's client id with a site's password does not wipe it.
  const { client: intruder } = await as('paris-11', 'hq-1', true)
  await intruder.endAsync()
  const received: string[] = []
  const back = connect(broker.url, {
    username: 'hq-1',
    password: accounts['hq-1'],
    ca: readFileSync(pki.ca),
    protocolVersion: 4,
    reconnectPeriod: 0,
    clientId: 'hq-1',
    clean: false,
  })
  clients.push(back)
  back.on('message', (_topic, payload) => received.push(String(payload)))
  const connack = await new Promise<{ sessionPresent: boolean }>((resolve, reject) => {
    back.once('connect', resolve)
    back.once('error', reject)
  })
  t.ok(connack.sessionPresent, "HQ's session is still there")
  await until(() => received.includes('{"waiting":true}'), 'what the session kept reaches HQ')
})

t.test('a client certificate per site instead of a password: its CN is its account and its client id', async (t) => {
  const { broker, pki, dir } = await shippedBroker(t, { unused: 'pw' }, true)
  const clients: MqttClient[] = []
  t.teardown(() => Promise.all(clients.map((c) => c.endAsync(true))))
  const as = async (cn: string | null, clientId: string, clean = true) => {
    const identity = cn ? makeClientCert(dir, cn) : null
    const client = connect(broker.url, {
      ca: readFileSync(pki.ca),
      ...(identity ? { cert: readFileSync(identity.cert), key: readFileSync(identity.key) } : {}),
      protocolVersion: 4,
      reconnectPeriod: 0,
      connectTimeout: 5000,
      clientId,
      clean,
    })
    client.on('error', () => undefined)
    clients.push(client)
    await new Promise<void>((resolve, reject) => {
      client.once('connect', () => resolve())
      client.once('error', reject)
      client.once('close', () => reject(new Error('closed')))
    })
    return client
  }
  const received: string[] = []
  const hq = await as('hq-1', 'hq-1', false)
  hq.on('message', (topic, payload) => received.push(`${topic} ${payload}`))
  await hq.subscribeAsync(`${prefix}/+/events`, { qos: 1 })

  const lyon = await as('lyon-2', 'tracker-gateway-lyon-2')
  let lyonClosed = false
  lyon.once('close', () => (lyonClosed = true))
  // Paris's certificate asking for Lyon's client id: it gets its own, Lyon stays connected.
  const paris = await as('paris-11', 'tracker-gateway-lyon-2')
  await paris.publishAsync(`${prefix}/paris-11/events`, '{"paris":true}', { qos: 1 })
  await Promise.race([lyon.publishAsync(`${prefix}/lyon-2/events`, '{"lyon":true}', { qos: 1 }), until(() => lyonClosed, 'lyon acknowledged or closed')])
  t.notOk(lyonClosed, "lyon's connection is not taken over by paris's certificate")
  await until(
    () => received.includes(`${prefix}/paris-11/events {"paris":true}`) && received.includes(`${prefix}/lyon-2/events {"lyon":true}`),
    "both sites' own messages at HQ",
  )
  // Paris's certificate writing under Lyon: refused as with a password.
  let parisClosed = false
  paris.once('close', () => (parisClosed = true))
  paris.publish(`${prefix}/lyon-2/events`, '{"forged":true}', { qos: 1 })
  await until(() => parisClosed || received.some((m) => m.includes('forged')), "the broker's answer to paris writing under lyon")
  t.notOk(
    received.some((m) => m.includes('forged')),
    "a site's certificate cannot write under another site",
  )
  // No certificate: refused, whatever the password.
  await t.rejects(as(null, 'tracker-gateway-lyon-2'), 'a client without a certificate is refused')
  t.notOk(lyonClosed, 'and did not disconnect lyon')
})
