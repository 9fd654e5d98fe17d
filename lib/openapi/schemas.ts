// Reusable JSON Schemas of the OpenAPI document: the envelopes and the resources whose shape
// the specification and docs/api.md fix. Payloads of a route are named in `payloads` by
// "METHOD path"; a route not named there is documented as an envelope with further fields.
import type { JsonSchema } from '../api/function-config.ts'
import { bodySchemaOf, safeJsonValueRef, unsafeKeyPattern } from '../api/input-schema.ts'
import { screenSettingsSchema } from '../settings/screen-settings.ts'

const localTime = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$', description: 'Gateway-local time, no offset' }
const offsetTime = { type: 'string', description: 'Time with the gateway UTC offset, e.g. 2024-05-01T12:00:00+02:00' }
const uuid = { type: 'string', format: 'uuid' }
const orderType = { type: 'string', enum: ['ON_PREMISE', 'TO_GO'] }

const activeOrderCommon = {
  uuid,
  name: { type: 'string', description: 'Order number (the tracker number), a positive integer as text' },
  created: localTime,
  orderType,
  locationName: { type: 'string', description: 'Table number, empty when not located' },
  state: { type: 'string', enum: ['started', 'located', 'cleared'] },
  elapsedTime: { type: 'integer', minimum: 0, description: 'Whole seconds since created' },
}

export const componentSchemas: Record<string, JsonSchema> = {
  // Any JSON value whose objects have no key starting with $ and no __proto__, constructor or
  // prototype, at any depth: what the server reads in the keys of a body it otherwise ignores.
  SafeJsonValue: {
    description: 'Any JSON value; every object in it, at any depth, without keys starting with $ or named __proto__, constructor, prototype',
    type: ['object', 'array', 'string', 'number', 'boolean', 'null'],
    items: { $ref: safeJsonValueRef },
    propertyNames: { not: { pattern: unsafeKeyPattern } },
    additionalProperties: { $ref: safeJsonValueRef },
  },
  V1Envelope: {
    type: 'object',
    required: ['status'],
    properties: { status: { type: 'integer', description: 'Equals the HTTP status' }, message: { type: 'string' } },
  },
  V2Envelope: {
    type: 'object',
    required: ['status', 'returnCode'],
    properties: {
      status: { type: 'integer', description: 'Equals the HTTP status' },
      returnCode: { type: 'integer', description: 'Path default (1-999), outcome (above 1000) or error (negative)' },
      message: { type: 'string' },
    },
  },
  V1Error: {
    type: 'object',
    required: ['status', 'message'],
    properties: { status: { type: 'integer' }, message: { type: 'string' } },
  },
  V2Error: {
    type: 'object',
    required: ['status', 'returnCode', 'message'],
    properties: { status: { type: 'integer' }, returnCode: { type: 'integer', maximum: -1 }, message: { type: 'string' } },
  },
  ActiveOrderV2: {
    type: 'object',
    required: ['uuid', 'name', 'created', 'orderType', 'locationName', 'state', 'stateChanged', 'paged', 'elapsedTime'],
    properties: { ...activeOrderCommon, stateChanged: localTime, paged: { type: 'boolean' } },
  },
  ActiveOrderV1: {
    type: 'object',
    required: ['uuid', 'name', 'created', 'orderType', 'locationName', 'state', 'stateStarted', 'paged'],
    properties: { ...activeOrderCommon, stateStarted: localTime, paged: { type: 'string', enum: ['Yes', 'No'] } },
  },
  OrderSummary: {
    type: 'object',
    required: ['uuid', 'name', 'type', 'orderType', 'locationName', 'orderStarted', 'orderLocated', 'orderCleared'],
    properties: {
      uuid,
      name: { type: 'string' },
      type: { const: 'ORDER_SUMMARY' },
      orderType,
      locationName: { type: ['string', 'null'] },
      orderStarted: offsetTime,
      orderLocated: { ...offsetTime, type: ['string', 'null'] },
      orderCleared: offsetTime,
    },
  },
  Statistics: {
    type: 'object',
    required: ['ordersToday', 'averageSeconds', 'exceededToday', 'percentGoal', 'targetTime'],
    properties: {
      ordersToday: { type: 'integer', description: 'Orders cleared today (gateway timezone)' },
      averageSeconds: { type: 'number', description: 'Mean start-to-clear time, 0 when none' },
      exceededToday: { type: 'integer', description: 'Orders that took longer than targetTime' },
      percentGoal: { type: 'number', description: 'Percentage within targetTime, 0 when none' },
      targetTime: { type: 'number', description: 'Target in seconds (query target_time or setting targetTimeDefault)' },
    },
  },
  AccessToken: {
    type: 'object',
    required: ['name', 'token'],
    properties: {
      name: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
      token: { type: 'string', pattern: '^[0-9a-f]{48}$', description: 'Shown once, in this answer only' },
    },
  },
  // The WebSocket feed's frames (GET /api/v2/websocket, x-websocket): the client's one frame, then the gateway's.
  WsTokenFrame: {
    type: 'object',
    required: ['accesstoken'],
    properties: { accesstoken: { type: 'string', pattern: '^[0-9a-f]{48}$', description: 'An access token of any scope' } },
    description: 'The first text frame a client sends, within 10 s of the upgrade',
  },
  WsActiveOrdersFrame: {
    type: 'object',
    required: ['type', 'count', 'items', 'seq'],
    properties: {
      type: { const: 'ACTIVE_ORDERS' },
      count: { type: 'integer', minimum: 0 },
      items: { type: 'array', items: { $ref: '#/components/schemas/ActiveOrderV2' } },
      seq: { type: 'integer', minimum: 0, description: 'The change this snapshot includes: change frames with a larger seq follow' },
    },
    description: 'Sent once after the token frame: every active order',
  },
  WsOrderChangeFrame: {
    allOf: [
      { $ref: '#/components/schemas/ActiveOrderV2' },
      {
        type: 'object',
        required: ['type', 'seq'],
        properties: {
          type: { enum: ['ORDER_CREATED', 'ORDER_MODIFIED', 'ORDER_PAGED', 'ORDER_CLEARED'] },
          seq: { type: 'integer', minimum: 1, description: 'Increases by one per change; a client that reconnects ignores frames up to its snapshot seq' },
        },
      },
    ],
    description: 'One frame per change of an active order after the snapshot',
  },
  ScreenSettings: { ...bodySchemaOf(screenSettingsSchema), description: "A named screen's settings: the keys it (or an admin) set; a key never set is absent" },
  WsScreenSettingsFrame: {
    type: 'object',
    required: ['type', 'screen'],
    properties: {
      type: { const: 'SCREEN_SETTINGS' },
      screen: {
        type: 'object',
        required: ['name', 'settings'],
        properties: {
          name: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$', description: "The screen's token name: the subscriber's own" },
          settings: { $ref: '#/components/schemas/ScreenSettings' },
        },
      },
    },
    description:
      'Extension (screen settings): sent to the subscribers signed in with a token of that name whenever its settings change (by the screen, another browser of that name, or an admin): all of them, as GET /api/v2/board/settings answers them',
  },
  ServiceDescription: {
    type: 'object',
    required: ['name', 'apiVersion', 'deviceId'],
    properties: { name: { type: 'string' }, apiVersion: { type: 'string' }, deviceId: { type: 'string' } },
  },
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const list = (item: string, countType: 'integer' | 'string') => ({
  count: { type: countType },
  items: { type: 'array', items: ref(item) },
})

/** A history list's snapshot position (docs/api.md, "Stable paging"), in every answer of both versions. */
const asOf: JsonSchema = {
  type: 'string',
  pattern: '^[0-9]+$',
  description: 'Extension: the highest history position this list includes; pass it back as as_of for the next pages',
}

/** Fields a route's success body carries next to the envelope, by "METHOD path". */
/** What HTTPS serves (lib/gateway/tls-status.ts): in GET /api/v2/gateway/tls and gatewayStatus.tls. */
const tlsStatus: JsonSchema = {
  anyOf: [
    {
      type: 'object',
      required: ['port', 'source', 'fingerprintSha256', 'spkiSha256', 'subjectAltNames', 'validTo'],
      properties: {
        port: { type: 'integer', minimum: 1, maximum: 65535, description: 'The HTTPS port' },
        source: {
          enum: ['self-signed', 'installed', 'config'],
          description: "The box's own certificate, one installed with the gateway tls install command, or the one of tls.certFile",
        },
        fingerprintSha256: { type: 'string', pattern: '^([0-9A-F]{2}:){31}[0-9A-F]{2}$', description: 'SHA-256 of the certificate, as browsers show it' },
        spkiSha256: { type: 'string', description: "SHA-256 of the public key (base64): the pin that survives a reissue of the box's own certificate" },
        subjectAltNames: { type: 'array', items: { type: 'string' }, description: 'e.g. "DNS:box.local", "IP Address:192.168.1.20"' },
        validTo: { type: 'string', format: 'date-time' },
      },
    },
    { type: 'null', description: 'HTTPS is off' },
  ],
}

export const payloads: Record<string, Record<string, JsonSchema>> = {
  'GET /api/v2/gateway/tls': { tls: tlsStatus },
  'GET /api/v1': { ...(componentSchemas.ServiceDescription!.properties as Record<string, JsonSchema>) },
  'GET /api/v2': { ...(componentSchemas.ServiceDescription!.properties as Record<string, JsonSchema>) },
  'GET /api/v2/activeorders': list('ActiveOrderV2', 'integer'),
  'DELETE /api/v2/activeorders': list('ActiveOrderV2', 'integer'),
  'POST /api/v2/activeorders': { activeorder: ref('ActiveOrderV2') },
  'GET /api/v2/activeorders/:id': { activeorder: ref('ActiveOrderV2') },
  'DELETE /api/v2/activeorders/:id': { activeorder: ref('ActiveOrderV2') },
  'POST /api/v2/activeorders/:id/page': { activeorder: ref('ActiveOrderV2') },
  'GET /api/v2/activeorders/:id/page': { paged: { type: 'boolean' } },
  'GET /api/v1/activeorders': list('ActiveOrderV1', 'string'),
  'POST /api/v1/activeorders': { activeorder: ref('ActiveOrderV1') },
  'GET /api/v1/activeorders/:id': { activeorder: ref('ActiveOrderV1') },
  'DELETE /api/v1/activeorders/:name': { activeorder: ref('ActiveOrderV1') },
  'POST /api/v1/activeorders/:name/page': { activeorder: ref('ActiveOrderV1') },
  'GET /api/v2/orders': { ...list('OrderSummary', 'string'), asOf },
  'GET /api/v1/orders': { ...list('OrderSummary', 'string'), asOf },
  'GET /api/v2/orders/:uuid': { order: ref('OrderSummary') },
  'GET /api/v1/orders/:uuid': { order: ref('OrderSummary') },
  'GET /api/v2/accesstoken/generate': { token: ref('AccessToken') },
  'POST /api/v2/accesstoken/generate': { token: ref('AccessToken') },
  'GET /api/v2/statistics': { statistics: ref('Statistics') },
  'POST /api/v2/register': {
    webhook: {
      type: 'object',
      required: ['url'],
      properties: {
        url: { type: 'string', format: 'uri' },
        secret: { type: 'string', pattern: '^whsec_', description: 'The signing secret (Standard Webhooks), in the answer that registers the URL only' },
      },
    },
  },
  'GET /api/v1/statistics': { ...(componentSchemas.Statistics!.properties as Record<string, JsonSchema>) },
}
