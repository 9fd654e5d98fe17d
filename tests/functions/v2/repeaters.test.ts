import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'

const joined = (at: number, suffix = '44') => ({
  extendedAddress: `00:12:4b:00:11:22:33:${suffix}`,
  shortAddress: 0x4321,
  at,
  lastSeen: at,
  manufacturerId: 0xfff1,
  profileId: 0x0104,
  firmwareVersion: '2.1.0',
  hardwareVersion: 3,
  deviceType: 'Router',
  deviceModel: 'REPEATER-2',
})

t.test('GET /api/v2/repeaters lists the inventory with every field, code 15', async (t) => {
  const gw = await testGateway({}, '2026-03-01T12:00:00Z')
  const token = await gw.issueToken()
  await gw.services.settings.update({ timezone: '+01:00' })
  await gw.services.repeaters.record(joined(gw.clock.now()))
  const { status, body } = await gw.json('GET /api/v2/repeaters', { token })
  t.equal(status, 200)
  t.equal(body.returnCode, 15)
  t.equal(body.count, 1)
  const upNow = (await gw.services.radio.info()).up
  t.same(body.repeaters[0], {
    extendedAddress: '00:12:4b:00:11:22:33:44',
    shortAddress: 0x4321,
    label: 'Repeater 3344',
    manufacturerId: 0xfff1,
    profileId: 0x0104,
    parentShortAddress: null,
    firmwareVersion: '2.1.0',
    hardwareVersion: 3,
    remainingChildren: null,
    deviceType: 'Router',
    deviceModel: 'REPEATER-2',
    status: upNow ? 'ACTIVE' : 'INACTIVE',
    lastSeen: '2026-03-01T13:00:00',
  })
})

t.test('a repeater not heard from for 15 minutes is INACTIVE; a newer sighting revives it', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken()
  if (!(await gw.services.radio.info()).up) await gw.services.radio.start()
  t.ok((await gw.services.radio.info()).up, 'the simulated radio is up')
  await gw.services.repeaters.record(joined(gw.clock.now()))
  t.equal((await gw.json('GET /api/v2/repeaters', { token })).body.repeaters[0].status, 'ACTIVE')
  await gw.clock.advance(15 * 60_000 + 1)
  t.equal((await gw.json('GET /api/v2/repeaters', { token })).body.repeaters[0].status, 'INACTIVE')
  await gw.services.repeaters.record(joined(gw.clock.now()))
  t.equal((await gw.json('GET /api/v2/repeaters', { token })).body.repeaters[0].status, 'ACTIVE')
})

t.test('refresh must be true or false (-15); refresh=true answers the list', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken()
  for (const bad of ['yes', '1', '', 'TRUE']) {
    const { status, body } = await gw.json(`GET /api/v2/repeaters?refresh=${bad}`, { token })
    t.equal(status, 400, bad)
    t.equal(body.returnCode, -15, bad)
  }
  await gw.services.repeaters.record(joined(gw.clock.now()))
  t.equal((await gw.json('GET /api/v2/repeaters?refresh=true', { token })).body.count, 1)
  t.equal((await gw.json('GET /api/v2/repeaters?refresh=false', { token })).body.count, 1)
})

t.test('DELETE /api/v2/repeaters clears the inventory (1006)', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken()
  await gw.services.repeaters.record(joined(gw.clock.now(), '44'))
  await gw.services.repeaters.record(joined(gw.clock.now(), '55'))
  const { status, body } = await gw.json('DELETE /api/v2/repeaters', { token })
  t.equal(status, 200)
  t.match(body, { returnCode: 1006, removed: 2 })
  t.equal((await gw.json('GET /api/v2/repeaters', { token })).body.count, 0)
  t.equal(await (await gw.services.store.collection('repeaters')).count(), 0, 'gone from the store too')
})

t.test('beginPairing opens joining (1012) with default 60 s; 0 closes (1013); endPairing closes (1013)', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken()
  if (!(await gw.services.radio.info()).up) await gw.services.radio.start()
  const now = gw.clock.now()
  const open = await gw.json('POST /api/v2/repeaters/beginPairing', { token, body: {} })
  t.equal(open.status, 200)
  t.match(open.body, { returnCode: 1012, pairing: { open: true, until: now + 60_000 } })
  t.equal((await gw.services.radio.info()).permitJoinUntil, now + 60_000, 'the radio was told')
  const custom = await gw.json('POST /api/v2/repeaters/beginPairing', { token, body: { timeout: '200' } })
  t.match(custom.body, { returnCode: 1012, pairing: { until: now + 200_000 } })
  const zero = await gw.json('POST /api/v2/repeaters/beginPairing', { token, body: { timeout: 0 } })
  t.match(zero.body, { returnCode: 1013, pairing: { open: false, until: null } })
  t.equal((await gw.services.radio.info()).permitJoinUntil, null)
  await gw.json('POST /api/v2/repeaters/beginPairing', { token, body: { timeout: 30 } })
  const end = await gw.json('POST /api/v2/repeaters/endPairing', { token })
  t.match(end.body, { status: 200, returnCode: 1013, pairing: { open: false } })
  t.equal((await gw.services.radio.info()).permitJoinUntil, null)
})

t.test('beginPairing refuses a timeout outside 0-254 or not an integer (-16), changing nothing', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken()
  for (const timeout of [255, -1, 1.5, 'abc', true, null, '1e2']) {
    const { status, body } = await gw.json('POST /api/v2/repeaters/beginPairing', { token, body: { timeout } })
    t.equal(status, 400, String(timeout))
    t.equal(body.returnCode, -16, String(timeout))
  }
  t.equal(gw.services.pairing.isOpen(), false)
  t.equal((await gw.json('POST /api/v2/repeaters/beginPairing', { token, rawBody: '{' })).body.returnCode, -31)
})

t.test('repeater routes need a token', async (t) => {
  const gw = await testGateway()
  for (const route of ['GET /api/v2/repeaters', 'DELETE /api/v2/repeaters', 'POST /api/v2/repeaters/beginPairing', 'POST /api/v2/repeaters/endPairing']) {
    t.equal((await gw.json(route)).status, 401, route)
  }
})

t.test('with the simulated radio, repeaters join while pairing is open and show in the inventory', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken()
  t.equal((await gw.json('GET /api/v2/repeaters', { token })).body.count, 0, 'nothing joined before pairing')
  await gw.clock.advance(60_000)
  t.equal((await gw.json('GET /api/v2/repeaters', { token })).body.count, 0, 'repeaters only join while pairing is open')

  t.equal((await gw.json('POST /api/v2/repeaters/beginPairing', { token, body: { timeout: 10 } })).body.returnCode, 1012)
  await gw.clock.advance(3_500)
  t.equal((await gw.json('GET /api/v2/repeaters', { token })).body.count, 1, 'the first repeater joined')
  await gw.clock.advance(3_000)
  const { body } = await gw.json('GET /api/v2/repeaters', { token })
  t.equal(body.count, 2)
  t.match(body.repeaters[0], { deviceType: 'Router', deviceModel: 'Simulated repeater', status: 'ACTIVE' })

  t.equal((await gw.json('DELETE /api/v2/repeaters', { token })).body.returnCode, 1006)
  t.equal((await gw.json('GET /api/v2/repeaters?refresh=true', { token })).body.count, 2, 'a refresh hears the joined repeaters again')
})

t.test('simulated repeaters do not join once pairing was closed', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken()
  await gw.json('POST /api/v2/repeaters/beginPairing', { token, body: { timeout: 30 } })
  await gw.json('POST /api/v2/repeaters/endPairing', { token })
  await gw.clock.advance(10_000)
  t.equal((await gw.json('GET /api/v2/repeaters', { token })).body.count, 0)
})
