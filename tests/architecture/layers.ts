// The layer map of the product code, the rule docs/architecture.md states:
//
//   functions/ + runtime/   (app: HTTP host, CLI, control socket, wiring, workers)
//          |
//        lib/api            parse input, present output, envelopes, OpenAPI
//          |
//        lib/<domain>       orders, changes, history, tokens, settings, webhooks, fleet, radio, ...
//          |
//        lib/store          NeDB and node:sqlite behind small interfaces
//          |
//        lib/kernel         errors, clock, log, time
//
// A file may import its own layer and the layers below it, never above. Inside the domain
// layer the parts import each other only in the directions DOMAIN_MAY_IMPORT writes down.
import type { LayerMap } from './import-graph.ts'

export const LAYERS = ['kernel', 'store', 'domain', 'api', 'app'] as const
export type Layer = (typeof LAYERS)[number]

/**
 * The domain parts and the parts each may import. A part is a folder of lib/, except the
 * order vocabulary (lib/orders/types.ts, the Order shape every part speaks), the order
 * notification forms (lib/orders/notification.ts, which webhooks and the fleet render) and
 * the files at lib/'s root (config.ts, identity.ts). Anything not listed is forbidden, so a new
 * direction between domain folders is a decision written here, not an accident.
 */
export const DOMAIN_MAY_IMPORT: Record<string, readonly string[]> = {
  'orders/types': [],
  'orders/notification': ['orders/types'],
  config: ['fleet'], // config.ts validates the fleet section with fleet/config.ts's schema
  identity: [],
  settings: [],
  tokens: [],
  inventory: ['radio'], // repeaters.ts follows the radio's device events
  changes: ['orders/types'], // the order change log
  history: ['orders/types'],
  radio: ['config', 'orders/types'],
  webhooks: ['config', 'orders/types', 'orders/notification'],
  fleet: ['changes', 'identity', 'orders/types', 'orders/notification', 'release'], // the status message reports the last upgrade
  orders: ['orders/types', 'orders/notification', 'changes', 'history', 'inventory', 'radio'],
  gateway: ['fleet', 'identity', 'radio', 'backup', 'release'], // status.ts shows the last backup and the last upgrade
  backup: [], // hot backups: archive, encryption, manifest, schedule, last result
  release: [], // signed release archives, versions, the last upgrade's summary
  hq: ['webhooks', 'fleet', 'release'], // headquarters (its own service): alert webhooks signed and sent as the gateway's are; the fleet's broker URL and topic rules; release signatures checked as a gateway checks them (rollouts)
}

/** The domain part of a lib/ file ('orders', 'orders/types', 'config', ...). */
export function domainPart(file: string): string {
  if (file === 'lib/orders/types.ts') return 'orders/types'
  if (file === 'lib/orders/notification.ts') return 'orders/notification'
  const parts = file.split('/')
  return parts.length === 2 ? parts[1]!.replace(/\.ts$/, '') : parts[1]!
}

export function layerOf(file: string): Layer | undefined {
  if (file.startsWith('functions/') || file.startsWith('runtime/')) return 'app'
  if (!file.startsWith('lib/')) return undefined
  if (file.startsWith('lib/kernel/')) return 'kernel'
  if (file.startsWith('lib/store/')) return 'store'
  if (file.startsWith('lib/api/') || file.startsWith('lib/openapi/')) return 'api'
  return DOMAIN_MAY_IMPORT[domainPart(file)] === undefined ? undefined : 'domain'
}

/**
 * Domain parts lib/api may not import although they lie below it. The radio: lib/api parses
 * input and presents what the domain parts hold; what it needs of the radio's setup (when a
 * tracker counts as unavailable) the inventory states (lib/inventory/tracker-availability.ts).
 */
export const API_MAY_NOT_IMPORT: readonly string[] = ['radio']

/** The layer map the test checks: layers by rank, domain parts by DOMAIN_MAY_IMPORT, lib/api by API_MAY_NOT_IMPORT. */
export const gatewayLayers: LayerMap = {
  layerOf,
  forbids(from, to) {
    const a = layerOf(from)!
    const b = layerOf(to)!
    if (LAYERS.indexOf(a) < LAYERS.indexOf(b)) return `${a} may not import ${b} (upward)`
    if (a === 'api' && b === 'domain' && API_MAY_NOT_IMPORT.includes(domainPart(to))) return `api may not import ${domainPart(to)} (API_MAY_NOT_IMPORT)`
    if (a !== 'domain' || b !== 'domain') return undefined
    const part = domainPart(from)
    const target = domainPart(to)
    if (part === target || DOMAIN_MAY_IMPORT[part]!.includes(target)) return undefined
    return `domain part ${part} may not import ${target} (not in DOMAIN_MAY_IMPORT)`
  },
}
