import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'

t.test('GET /api/v2/gateway/settings answers the three settings, code 13', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken()
  const { status, body } = await gw.json('GET /api/v2/gateway/settings', { token })
  t.equal(status, 200)
  t.match(body, { returnCode: 13, settings: { zigbeePreset: 'B', targetTimeDefault: 300, timezone: String } })
  t.same(Object.keys(body.settings).sort(), ['targetTimeDefault', 'timezone', 'zigbeePreset'])
})

t.test('POST changes settings (1004) and they persist', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken()
  const { status, body } = await gw.json('POST /api/v2/gateway/settings', {
    token,
    body: { zigbeePreset: 'C', targetTimeDefault: 420, timezone: 'Europe/Paris' },
  })
  t.equal(status, 200)
  t.match(body, { returnCode: 1004, settings: { zigbeePreset: 'C', targetTimeDefault: 420, timezone: 'Europe/Paris' } })
  const again = await gw.json('GET /api/v2/gateway/settings', { token })
  t.same(again.body.settings, { zigbeePreset: 'C', targetTimeDefault: 420, timezone: 'Europe/Paris' })
  const stored = await (await gw.services.store.collection<Record<string, unknown>>('settings')).findOne({ key: 'settings' })
  t.match(stored, { zigbeePreset: 'C', targetTimeDefault: 420, timezone: 'Europe/Paris' }, 'written to the store')
})

t.test('an unknown key is -20 naming the key; nothing changes', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken()
  await gw.services.settings.update({ timezone: 'Europe/Paris' })
  const { status, body } = await gw.json('POST /api/v2/gateway/settings', { token, body: { timezone: 'UTC', colour: 'red' } })
  t.equal(status, 400)
  t.equal(body.returnCode, -20)
  t.equal(body.message, 'Invalid settings key: colour')
  t.equal((await gw.json('GET /api/v2/gateway/settings', { token })).body.settings.timezone, 'Europe/Paris', 'the valid key was not applied either')
})

t.test('a bad value is -21; a request with any error changes nothing', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken()
  const before = gw.services.settings.get()
  for (const body of [
    { zigbeePreset: 'Z' },
    { targetTimeDefault: 0 },
    { targetTimeDefault: 1.5 },
    { targetTimeDefault: '300' },
    { timezone: 'Mars/Olympus' },
    { zigbeePreset: 'B', timezone: 'Nowhere/Land' },
  ]) {
    const answer = await gw.json('POST /api/v2/gateway/settings', { token, body })
    t.equal(answer.status, 400, JSON.stringify(body))
    t.equal(answer.body.returnCode, -21, JSON.stringify(body))
  }
  t.same(gw.services.settings.get(), before, 'all or nothing')
})

t.test('malformed JSON is -31; no token is -2', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken()
  t.equal((await gw.json('POST /api/v2/gateway/settings', { token, rawBody: '{"timezone":' })).body.returnCode, -31)
  t.equal((await gw.json('POST /api/v2/gateway/settings', { body: { timezone: 'UTC' } })).status, 401)
})

t.test('changing the preset moves the zigbee channel source', async (t) => {
  const { presetChannel } = await import('../../../runtime/wiring/subscriptions.ts')
  const gw = await testGateway()
  const source = presetChannel(gw.services.settings)
  let changes = 0
  source.on('changed', () => changes++)
  t.equal(source.channel(), 15, 'a new gateway starts on preset B, channel 15, not 11 (under Wi-Fi 1)')
  await gw.services.settings.update({ zigbeePreset: 'A' })
  t.equal(source.channel(), 11)
  await gw.services.settings.update({ timezone: 'UTC' })
  t.equal(changes, 1, 'only a preset change restarts the radio')
})

t.test('a gateway whose Zigbee network was formed on the old default keeps preset A (channel 11)', async (t) => {
  const dataDir = t.testdir({ zigbee: { 'network.json': '{}' } })
  const gw = await testGateway({ dataDir })
  t.equal(gw.services.settings.get().zigbeePreset, 'A', 'upgrading never moves a running network')
  const fresh = await testGateway({ dataDir: t.testdir({}) })
  t.equal(fresh.services.settings.get().zigbeePreset, 'B')
})
