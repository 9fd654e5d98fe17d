// Chooses the radio from the configuration: the simulated restaurant by default, or the
// Zigbee radio (zigbee-herdsman), which is imported only when configured so a gateway that
// never uses Zigbee never loads herdsman.
import type { Clock } from '../clock.ts'
import type { GatewayConfig } from '../config.ts'
import type { Logger } from '../log.ts'
import type { Radio } from './radio.ts'
import { SimulatedRadio } from './simulated.ts'

export interface RadioDeps {
  clock: Clock
  log: Logger
  /** Further ZigbeeRadio options (e.g. its channel source), passed through unchanged. */
  zigbee?: Record<string, unknown>
}

export async function createRadio(config: GatewayConfig, deps: RadioDeps): Promise<Radio> {
  if (config.radio.kind === 'simulated') return new SimulatedRadio({ clock: deps.clock, trackers: config.radio.trackers })
  // ---- kind 'zigbee' -------------------------------------------------------------------
  // zigbee.ts is written separately and exports `ZigbeeRadio`. The module path is held in a
  // variable so this file type-checks and loads while zigbee.ts does not exist yet.
  const zigbeeModule = './zigbee.ts'
  let loaded: { ZigbeeRadio?: new (options: Record<string, unknown>) => Radio }
  try {
    loaded = (await import(zigbeeModule)) as typeof loaded
  } catch (error) {
    throw new Error(`radio kind "zigbee" is configured but the Zigbee radio could not be loaded (lib/radio/zigbee.ts): ${(error as Error).message}`, { cause: error })
  }
  if (typeof loaded.ZigbeeRadio !== 'function') throw new Error('radio kind "zigbee": lib/radio/zigbee.ts does not export ZigbeeRadio')
  return new loaded.ZigbeeRadio({
    adapter: config.radio.adapter,
    serialPort: config.radio.serialPort,
    manufacturerCode: config.radio.manufacturerCode,
    dataDir: config.dataDir,
    clock: deps.clock,
    log: deps.log,
    ...deps.zigbee,
  })
}
