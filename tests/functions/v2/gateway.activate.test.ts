import t from 'tap'
import { startCloudServer } from '../../helpers/cloud-server.ts'
import { testGateway } from '../../helpers/gateway.ts'

t.test('without a cloud service configured: NOT_CONFIGURED, and every code is refused (-19)', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken()
  const state = await gw.json('GET /api/v2/gateway/activate', { token })
  t.match(state, { status: 200, body: { returnCode: 12, state: 'NOT_CONFIGURED', configured: false, activated: false } })
  const { status, body } = await gw.json('POST /api/v2/gateway/activate', { token, body: { deviceCode: '123-4567-890' } })
  t.equal(status, 400)
  t.equal(body.returnCode, -19)
})

t.test('device code missing (-18) or malformed (-17)', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken()
  for (const body of [{}, { deviceCode: '' }, { deviceCode: null }]) {
    t.equal((await gw.json('POST /api/v2/gateway/activate', { token, body })).body.returnCode, -18, JSON.stringify(body))
  }
  for (const deviceCode of ['1234567890', '123-456-7890', 'abc-defg-hij', 123, '123-4567-8901']) {
    const { status, body } = await gw.json('POST /api/v2/gateway/activate', { token, body: { deviceCode } })
    t.equal(status, 400)
    t.equal(body.returnCode, -17, String(deviceCode))
  }
})

t.test('activation against a local cloud service: refused -19, activated 1011, then 1008; state persisted', async (t) => {
  const cloud = await startCloudServer()
  t.teardown(() => cloud.close())
  const gw = await testGateway({ cloud: { url: cloud.url } })
  const token = await gw.issueToken()

  const refused = await gw.json('POST /api/v2/gateway/activate', { token, body: { deviceCode: '999-9999-999' } })
  t.equal(refused.status, 400)
  t.equal(refused.body.returnCode, -19)
  t.match(refused.body.message, /unknown device code/)
  t.match((await gw.json('GET /api/v2/gateway/activate', { token })).body, { state: 'NOT_CONFIGURED', configured: true })

  const ok = await gw.json('POST /api/v2/gateway/activate', { token, body: { deviceCode: '123-4567-890' } })
  t.equal(ok.status, 200)
  t.match(ok.body, { returnCode: 1011, state: 'CONNECTED', activated: true, accountName: 'Pizza Co', locationName: 'Main Street' })
  t.match(cloud.requests.at(-1)!.body, { deviceCode: '123-4567-890', deviceId: gw.services.identity.deviceId })

  const again = await gw.json('POST /api/v2/gateway/activate', { token, body: { deviceCode: '123-4567-890' } })
  t.match(again.body, { returnCode: 1008, activated: true })

  const status = await gw.json('GET /api/v2/gateway', { token })
  t.match(status.body.gatewayStatus, { cloudAccountName: 'Pizza Co', cloudLocationName: 'Main Street' })
  const stored = await (await gw.services.store.collection<Record<string, unknown>>('cloud')).findOne({ key: 'cloud' })
  t.match(stored, { deviceCode: '123-4567-890', accountName: 'Pizza Co' }, 'persisted')

  t.match((await gw.json('GET /api/v2/gateway/activate', { token })).body, { returnCode: 12, state: 'CONNECTED' })
  await cloud.close()
  t.match((await gw.json('GET /api/v2/gateway/activate', { token })).body, { state: 'UNREACHABLE', activated: true })
})

t.test('an unreachable cloud service refuses activation (-19)', async (t) => {
  const cloud = await startCloudServer()
  await cloud.close()
  const gw = await testGateway({ cloud: { url: cloud.url } })
  const token = await gw.issueToken()
  const { body } = await gw.json('POST /api/v2/gateway/activate', { token, body: { deviceCode: '123-4567-890' } })
  t.equal(body.returnCode, -19)
  t.match(body.message, /unreachable/)
})

t.test('activation routes need a token', async (t) => {
  const gw = await testGateway()
  t.equal((await gw.json('GET /api/v2/gateway/activate')).status, 401)
  t.equal((await gw.json('POST /api/v2/gateway/activate', { body: { deviceCode: '123-4567-890' } })).status, 401)
})
