// GET /api/v2/capabilities: what this gateway speaks and offers, so an integrator can adapt
// without trying things: API versions, the radio, optional features and the limits.
import type { GatewayConfig } from '../config.ts'
import { maxParamLength } from './input-schema.ts'
import { zigbeePresets } from '../settings/service.ts'
import type { Capabilities } from './wire-types.ts'

export type { Capabilities } from './wire-types.ts'

export function capabilities(config: GatewayConfig, version: string): Capabilities {
  return {
    apiVersions: ['v1', 'v2'],
    product: 'Tracker Gateway',
    appBundleVersion: version,
    radio: {
      kind: config.radio.kind,
      adapter: config.radio.kind === 'zigbee' ? (config.radio.adapter ?? 'auto') : null,
      zigbeePresets: structuredClone(zigbeePresets),
    },
    features: {
      websocket: true,
      webhooks: true,
      mdns: config.mdns.enabled,
      cloudActivation: config.cloud.url !== null,
      paging: { tracking: true, once: true },
      repeaterPairing: true,
    },
    limits: {
      bodyBytes: 16 * 1024,
      headerBytes: 16 * 1024,
      jsonDepth: 32,
      paramLength: maxParamLength,
      ordersPageMax: 100,
      pairingTimeoutMax: 254,
      checkTimeoutMax: 254,
    },
  }
}
