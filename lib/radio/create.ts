// Chooses the radio from the configuration: the simulated restaurant by default, or the
// Zigbee radio, which runs zigbee-herdsman in its own supervised process (zigbee-process.ts),
// so the gateway process itself never loads herdsman.
import type { Clock } from '../kernel/clock.ts'
import type { GatewayConfig } from '../config.ts'
import type { Logger } from '../kernel/log.ts'
import type { Radio } from './radio.ts'
import { SimulatedRadio } from './simulated.ts'
import { ZigbeeProcessRadio, type ZigbeeProcessOptions } from './zigbee-process.ts'

export interface RadioDeps {
  clock: Clock
  log: Logger
  /** Further Zigbee radio options (its channel source; tests: the radio process's flags). */
  zigbee?: Partial<ZigbeeProcessOptions>
}

export function createRadio(config: GatewayConfig, deps: RadioDeps): Radio {
  if (config.radio.kind === 'simulated') return new SimulatedRadio({ clock: deps.clock, trackers: config.radio.trackers, log: deps.log })
  const { adapter, serialPort, baudRate, rtscts, transmitPower, manufacturerCode } = config.radio
  const channel = deps.zigbee?.channel
  if (!channel) throw new Error('the Zigbee radio needs a channel source (the zigbeePreset setting)')
  return new ZigbeeProcessRadio({
    adapter,
    serialPort,
    baudRate,
    rtscts,
    transmitPower,
    manufacturerCode,
    dataDir: config.dataDir,
    clock: deps.clock,
    log: deps.log,
    ...deps.zigbee,
    channel,
  })
}
