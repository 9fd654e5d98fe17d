// Which radio the running gateway drives, for `gateway status`: a fresh install runs the
// simulated restaurant, and with a stick plugged in nothing else says that the stick is not
// in use. The board shows the same word in its header.
import type { Radio } from '../../lib/radio/radio.ts'
import type { ControlServer } from '../control/control.ts'

export interface RadioSummary {
  kind: 'simulated' | 'zigbee'
  up: boolean
  /** Why the Zigbee radio last went down, or null. */
  lastError: string | null
}

export function registerRadioSummary(control: ControlServer, radio: Pick<Radio, 'info'>): void {
  control.register('radio.summary', async (): Promise<RadioSummary> => {
    const info = await radio.info()
    return { kind: info.kind, up: info.up, lastError: info.supervision?.lastError ?? null }
  })
}

export function describeRadio(summary: RadioSummary): string {
  if (summary.kind === 'simulated') return 'radio: simulated (no Zigbee stick is used: set "radio" in the config, docs/operations.md "Configure")'
  if (summary.up) return 'radio: zigbee, up'
  return `radio: zigbee, down${summary.lastError ? `: ${summary.lastError}` : ''}`
}
