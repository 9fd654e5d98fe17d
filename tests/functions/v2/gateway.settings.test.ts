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

/** Makes the test gateway's radio report a Zigbee network with `devices` paired (null: down). */
function zigbeeWith(gw: Awaited<ReturnType<typeof testGateway>>, devices: number | null) {
  const info = gw.radio.info.bind(gw.radio)
  Object.defineProperty(gw.radio, 'kind', { value: 'zigbee' })
  gw.radio.info = async () => ({ ...(await info()), kind: 'zigbee', up: devices !== null, devices: devices ?? undefined })
}

t.test('a zigbeePreset that moves a network with paired devices is -45 (409) as the CLI refuses it; ?force=true moves it', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken()
  zigbeeWith(gw, 3)
  const refused = await gw.json('POST /api/v2/gateway/settings', { token, body: { zigbeePreset: 'C', timezone: 'Europe/Paris' } })
  t.equal(refused.status, 409)
  t.equal(refused.body.returnCode, -45)
  t.match(refused.body.message, /^Channel change refused: 3 devices are paired on channel \d+: .*add \?force=true/)
  t.equal(gw.services.settings.get().zigbeePreset, 'B', 'the preset did not change')
  t.not(gw.services.settings.get().timezone, 'Europe/Paris', 'nor did anything else in the request')
  const same = await gw.json('POST /api/v2/gateway/settings', { token, body: { zigbeePreset: 'B', targetTimeDefault: 400 } })
  t.equal(same.status, 200, 'the current preset again moves nothing and is accepted')
  const forced = await gw.json('POST /api/v2/gateway/settings?force=true', { token, body: { zigbeePreset: 'C' } })
  t.equal(forced.status, 200)
  t.equal(gw.services.settings.get().zigbeePreset, 'C')
  const bad = await gw.json('POST /api/v2/gateway/settings?force=yes', { token, body: { zigbeePreset: 'D' } })
  t.equal(bad.body.returnCode, -48)
  t.equal(gw.services.settings.get().zigbeePreset, 'C')
})

t.test('while the radio is down it cannot tell what is paired: refused without force', async (t) => {
  const gw = await testGateway()
  const token = await gw.issueToken()
  zigbeeWith(gw, null)
  const refused = await gw.json('POST /api/v2/gateway/settings', { token, body: { zigbeePreset: 'D' } })
  t.equal(refused.body.returnCode, -45)
  t.match(refused.body.message, /radio is down/)
  zigbeeWith(gw, 0)
  const moved = await gw.json('POST /api/v2/gateway/settings', { token, body: { zigbeePreset: 'D' } })
  t.equal(moved.status, 200, 'nothing paired: moved at once')
})
