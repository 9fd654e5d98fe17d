// zigbee2mqtt as the memory benchmark's yardstick (bench/zigbee2mqtt.ts): its configuration
// and where it is installed. Installing and running it is the benchmark's (npm run bench:memory).
import path from 'node:path'
import t from 'tap'
import { installZigbee2mqtt, zigbee2mqttCache, zigbee2mqttConfiguration, zigbee2mqttEnv, zigbee2mqttVersion } from '../../bench/zigbee2mqtt.ts'

t.test('configuration.yaml: ember on the given port, a broker port, no frontend or discovery', async (t) => {
  const text = zigbee2mqttConfiguration({ serialPort: '/dev/pts/7', mqttPort: 41883 })
  const lines = text.split('\n')
  t.equal(lines[0], 'version: 5', "zigbee2mqtt 2.14's settings version: no migration at start")
  t.ok(lines.includes('  port: /dev/pts/7'))
  t.ok(lines.includes('  adapter: ember'))
  t.ok(lines.includes('  server: mqtt://127.0.0.1:41883'))
  t.match(text, /homeassistant:\n {2}enabled: false/)
  t.match(text, /frontend:\n {2}enabled: false/)
  t.ok(text.endsWith('\n'))
  t.throws(() => zigbee2mqttConfiguration({ serialPort: '/dev/pts/7\nmqtt: x', mqttPort: 1 }), /unexpected characters/)
})

t.test('installed under node_modules/.cache per version; run with its data dir and no onboarding page', async (t) => {
  t.equal(zigbee2mqttVersion, '2.14.1')
  t.equal(zigbee2mqttCache('/x'), path.join('/x', 'node_modules/.cache', 'bench-zigbee2mqtt-2.14.1'))
  t.same(zigbee2mqttEnv('/tmp/d'), { ZIGBEE2MQTT_DATA: '/tmp/d', Z2M_ONBOARD_NO_SERVER: '1' })
})

t.test('an installed copy of the right version is used as it is (no npm run)', async (t) => {
  const root = t.testdir({
    node_modules: {
      '.cache': { 'bench-zigbee2mqtt-2.14.1': { node_modules: { zigbee2mqtt: { 'package.json': JSON.stringify({ version: '2.14.1' }), 'index.js': '' } } } },
    },
  })
  t.equal(installZigbee2mqtt(root), path.join(root, 'node_modules/.cache/bench-zigbee2mqtt-2.14.1/node_modules/zigbee2mqtt/index.js'))
})
