// What the API puts on the wire, as types: the orders, tokens and trackers a function's
// answer holds (ctx.present makes them, per API version), the lists kept presented, the
// capabilities. The presenters are checked against these (lib/api/present-order.ts,
// request-presenter.ts), a function's answer type is written with them
// (runtime/host/function-types.ts), and tests/functions/documented-answers.ts checks them
// against the OpenAPI document's schemas. Types only: the function contract names them
// without loading the presenters.
import type { RawJson } from './raw-json.ts'
import type { OrderState, OrderSummary, OrderType, ActiveOrder } from '../orders/types.ts'
import type { Scope } from '../tokens/scopes.ts'
import type { TokenRecord } from '../tokens/types.ts'
import type { TrackerRecord } from '../inventory/types.ts'

/** The API version a route belongs to (its path's /api/v1 or /api/v2). */
export type ApiVersion = 'v1' | 'v2'

interface ActiveOrderCommon {
  uuid: string
  /** The order number as text. */
  name: string
  /** Gateway-local time, no offset. */
  created: string
  orderType: OrderType
  /** The table as text, '' when not located. */
  locationName: string
  state: OrderState
  /** Whole seconds since created. */
  elapsedTime: number
}

/** v1: stateStarted, paged "Yes"/"No". */
export interface ActiveOrderV1 extends ActiveOrderCommon {
  stateStarted: string
  paged: 'Yes' | 'No'
}

/** v2: stateChanged, boolean paged. */
export interface ActiveOrderV2 extends ActiveOrderCommon {
  stateChanged: string
  paged: boolean
}

/** An active order on the wire, by API version. */
export interface ActiveOrderWire {
  v1: ActiveOrderV1
  v2: ActiveOrderV2
}

/** An order summary (both versions): times with the gateway's UTC offset. */
export interface OrderSummaryWire {
  uuid: string
  name: string
  type: 'ORDER_SUMMARY'
  orderType: OrderType
  locationName: string | null
  orderStarted: string
  orderLocated: string | null
  orderCleared: string
}

/** The v2 `token` object; `token` (the full token) only in the generate answer. */
export interface TokenWire {
  name: string
  token?: string
  prefix: string
  scope: Scope
  creation_date: string
  last_used: string | null
  ip_address: string | null
}

/** The `token` object of the answer that shows the full token, once. */
export type IssuedTokenWire = TokenWire & { token: string }

/** A tracker as GET /api/v2/trackers shows it. */
export interface TrackerView {
  number: number
  extendedAddress: string
  battery: number | null
  linkQuality: number | null
  captured: string
  lastSeen: string
  available: boolean
  order: { uuid: string; name: number } | null
}

/** The active orders presented once and kept until they change (lib/api/active-list.ts). */
export interface PresentedList {
  count: number
  items: RawJson
}

/** A history page presented once and kept (lib/api/history-pages.ts). */
export interface PresentedPage {
  count: number
  asOf: number
  items: RawJson
}

/** GET /api/v2/capabilities (lib/api/capabilities.ts). */
export interface Capabilities {
  apiVersions: string[]
  product: string
  appBundleVersion: string
  radio: { kind: string; adapter: string | null; zigbeePresets: Record<string, { channel: number }> }
  features: {
    websocket: boolean
    webhooks: boolean
    mdns: boolean
    cloudActivation: boolean
    paging: { tracking: boolean; once: boolean }
    repeaterPairing: boolean
  }
  limits: {
    bodyBytes: number
    headerBytes: number
    jsonDepth: number
    paramLength: number
    ordersPageMax: number
    pairingTimeoutMax: number
    checkTimeoutMax: number
  }
}

/** ctx.present: records presented in the route's version `V`, at this request's now and the gateway's timezone. */
export interface Presenter<V extends ApiVersion = ApiVersion> {
  /** The instant this request is presented at, and the gateway's timezone. */
  readonly now: number
  readonly timezone: string
  /** An active order in this version's fields (v1 stateStarted / "Yes"; v2 stateChanged / boolean). */
  activeOrder(order: ActiveOrder): ActiveOrderWire[V]
  orderSummary(summary: OrderSummary): OrderSummaryWire
  /** A token record; with the full token where it is shown once (generate, a screen's collection). */
  token(record: TokenRecord): TokenWire
  token(record: TokenRecord, fullToken: string): IssuedTokenWire
  tracker(record: TrackerRecord): TrackerView
  /** An instant with the gateway's offset; null stays null. */
  time(ms: number | null): string | null
}
