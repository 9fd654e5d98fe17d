// zigbee2mqtt as the memory benchmark's yardstick: the same radio library (herdsman) in one
// process. Installed from npm at bench time into node_modules/.cache (none of its code is in
// the repository), run with this process's Node on a configuration for an ember stick.
//
// MQTT: zigbee2mqtt 2.x connects to its broker only after herdsman has started
// (dist/controller.js: zigbee.start(), then mqtt.connect()), so on a stick that never
// answers it never gets that far; the configuration names a loopback port nobody listens on.
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'

export const zigbee2mqttVersion = '2.14.1'

/** The directory npm installs this version into (under node_modules/.cache: reruns reuse it). */
export function zigbee2mqttCache(root: string, version = zigbee2mqttVersion): string {
  return path.join(root, 'node_modules/.cache', `bench-zigbee2mqtt-${version}`)
}

/** zigbee2mqtt's entry point, installed first when this version is not there yet. */
export function installZigbee2mqtt(root: string, version = zigbee2mqttVersion): string {
  const prefix = zigbee2mqttCache(root, version)
  const packageDir = path.join(prefix, 'node_modules/zigbee2mqtt')
  const installed = () =>
    existsSync(path.join(packageDir, 'package.json')) &&
    (JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { version: string }).version === version
  if (!installed()) {
    process.stderr.write(`installing zigbee2mqtt ${version} into ${path.relative(root, prefix)} (once) …\n`)
    execFileSync('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--no-save', `zigbee2mqtt@${version}`], {
      stdio: ['ignore', 'ignore', 'inherit'],
    })
    if (!installed()) throw new Error(`npm did not install zigbee2mqtt ${version} into ${prefix}`)
  }
  return path.join(packageDir, 'index.js')
}

/**
 * configuration.yaml for an ember stick at serialPort: no frontend, no Home Assistant
 * discovery, logs to the console only, a fresh network (keys generated on first start).
 */
export function zigbee2mqttConfiguration(options: { serialPort: string; mqttPort: number; settingsVersion?: number }): string {
  if (!/^[\w./-]+$/.test(options.serialPort)) throw new Error(`unexpected characters in serial port path ${options.serialPort}`)
  return [
    `version: ${options.settingsVersion ?? 5}`,
    'homeassistant:',
    '  enabled: false',
    'frontend:',
    '  enabled: false',
    'mqtt:',
    '  base_topic: zigbee2mqtt',
    `  server: mqtt://127.0.0.1:${options.mqttPort}`,
    'serial:',
    `  port: ${options.serialPort}`,
    '  adapter: ember',
    'advanced:',
    '  log_level: info',
    '  log_output:',
    '    - console',
    '  network_key: GENERATE',
    '  pan_id: GENERATE',
    '  ext_pan_id: GENERATE',
    '',
  ].join('\n')
}

/** The environment zigbee2mqtt runs in: its data dir, and no onboarding web page. */
export function zigbee2mqttEnv(dataDir: string): NodeJS.ProcessEnv {
  return { ZIGBEE2MQTT_DATA: dataDir, Z2M_ONBOARD_NO_SERVER: '1' }
}
