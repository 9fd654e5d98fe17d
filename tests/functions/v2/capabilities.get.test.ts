import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'

t.test('GET /api/v2/capabilities answers without a token, code 4', async (t) => {
  const gw = await testGateway({ mdns: { enabled: false }, cloud: { url: 'http://127.0.0.1:9/activate' } })
  const { status, body } = await gw.json('GET /api/v2/capabilities')
  t.equal(status, 200)
  t.equal(body.returnCode, 4)
  t.match(body.capabilities, {
    apiVersions: ['v1', 'v2'],
    radio: { kind: 'simulated', adapter: null, zigbeePresets: { A: { channel: 15 }, B: { channel: 20 }, C: { channel: 25 }, D: { channel: 11 } } },
    features: { mdns: false, cloudActivation: true, websocket: true, webhooks: true },
    limits: { bodyBytes: 16384, ordersPageMax: 100, pairingTimeoutMax: 254, checkTimeoutMax: 254, paramLength: 256 },
  })
})

t.test('capabilities follow the configuration', async (t) => {
  const gw = await testGateway()
  const { body } = await gw.json('GET /api/v2/capabilities')
  t.match(body.capabilities.features, { mdns: true, cloudActivation: false })
})
