import t from 'tap'
import { startCloudServer } from '../../helpers/cloud-server.ts'
import { testGateway } from '../../helpers/gateway.ts'

t.test('GET /api/v2/gateway/check reports radio, storage and cloud, code 14', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken()
  if (!(await gw.services.radio.info()).up) await gw.services.radio.start()
  const { status, body } = await gw.json('GET /api/v2/gateway/check?timeout=3', { token })
  t.equal(status, 200)
  t.equal(body.returnCode, 14)
  t.match(body.check, { ok: true, timeout: 3, radio: { ok: true, kind: 'simulated' }, storage: { ok: true }, cloud: null })
  t.match((await gw.json('GET /api/v2/gateway/check', { token })).body.check, { timeout: 5 }, 'default 5 s')
  t.match((await gw.json('GET /api/v2/gateway/check?timeout=0', { token })).body.check, { timeout: 0, radio: { ok: true } })
})

t.test('a radio that is down fails the check', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken()
  await gw.services.radio.stop()
  const { body } = await gw.json('GET /api/v2/gateway/check', { token })
  t.match(body.check, { ok: false, radio: { ok: false } })
})

t.test('an activated gateway checks its cloud link', async (t) => {
  const cloud = await startCloudServer()
  t.teardown(() => cloud.close())
  const gw = await testGateway({ cloud: { url: cloud.url } })
  const token = await gw.issueToken()
  await gw.services.cloud.activate('123-4567-890')
  t.match((await gw.json('GET /api/v2/gateway/check', { token })).body.check.cloud, { ok: true, state: 'CONNECTED' })
  await cloud.close()
  const { body } = await gw.json('GET /api/v2/gateway/check', { token })
  t.match(body.check, { ok: false, cloud: { ok: false, state: 'UNREACHABLE' } })
})

t.test('timeout not an integer is -33; outside 0-254 is -34', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken()
  for (const bad of ['abc', '1.5', '', '5s', '0x10']) {
    const { status, body } = await gw.json(`GET /api/v2/gateway/check?timeout=${bad}`, { token })
    t.equal(status, 400, bad)
    t.equal(body.returnCode, -33, bad)
  }
  for (const bad of ['255', '-1', '1000']) {
    const { status, body } = await gw.json(`GET /api/v2/gateway/check?timeout=${bad}`, { token })
    t.equal(status, 400, bad)
    t.equal(body.returnCode, -34, bad)
  }
  t.equal((await gw.json('GET /api/v2/gateway/check')).status, 401, 'needs a token')
})
