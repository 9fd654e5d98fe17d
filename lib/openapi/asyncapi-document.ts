// The WebSocket feed as an AsyncAPI 3.0 document (served as /api/asyncapi.json), made from the
// OpenAPI document's own description of it (x-websocket and x-error-frames on
// GET /api/v2/websocket): the same frame schemas, so the two cannot say different things.
// Written from the gateway's side: it receives the token frame, it sends the snapshot, one
// frame per change and the error frames.

type Schema = Record<string, unknown>
interface FeedOperation {
  description: string
  'x-websocket': { clientFrames: { $ref: string }[]; serverFrames: { $ref: string }[] }
  responses: { '101': { description: string; 'x-error-frames': Schema } }
}
type OpenApi = { info: { version: string }; paths: Record<string, unknown>; components: { schemas: Record<string, Schema> } }

const websocketPath = '/api/v2/websocket'
const nameOf = (ref: string) => ref.replace('#/components/schemas/', '')

/** The named schemas `roots` refer to, and those they refer to in turn. */
function reachable(all: Record<string, Schema>, roots: unknown[]): Record<string, Schema> {
  const found: Record<string, Schema> = {}
  const visit = (node: unknown) => {
    for (const match of JSON.stringify(node).matchAll(/"#\/components\/schemas\/(\w+)"/g)) {
      const name = match[1]!
      if (found[name] || !all[name]) continue
      found[name] = all[name]
      visit(all[name])
    }
  }
  visit(roots)
  return found
}

export function buildAsyncApiDocument(openapi: OpenApi): Record<string, unknown> {
  const { get } = openapi.paths[websocketPath] as { get: FeedOperation }
  const { clientFrames, serverFrames } = get['x-websocket']
  const errorFrames = get.responses['101']['x-error-frames']
  // V2Error among the server frames is the error frame, described exactly by x-error-frames.
  const received = clientFrames.map((frame) => nameOf(frame.$ref))
  const sent = serverFrames.map((frame) => nameOf(frame.$ref)).filter((name) => !/^V\dError$/.test(name))
  const message = (name: string, payload: Schema) => ({
    name,
    title: (openapi.components.schemas[name]?.description as string | undefined) ?? name,
    contentType: 'application/json',
    payload,
  })
  const messages: Record<string, unknown> = {}
  for (const name of [...received, ...sent]) messages[name] = message(name, { $ref: `#/components/schemas/${name}` })
  messages.WsErrorFrame = {
    ...message('WsErrorFrame', errorFrames),
    title: 'An error frame (most are followed by a close)',
    description: get.responses['101'].description,
  }
  const channelMessage = (name: string) => ({ $ref: `#/channels/feed/messages/${name}` })
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Tracker Gateway live feed',
      version: openapi.info.version,
      description: `The WebSocket feed of active-order changes. ${get.description}`,
    },
    defaultContentType: 'application/json',
    servers: {
      gateway: {
        host: 'gateway.local:8000',
        protocol: 'ws',
        description: "The gateway's own HTTP port (wss on its HTTPS port); the upgrade is GET /api/v2/websocket",
      },
    },
    channels: {
      feed: {
        address: websocketPath,
        title: 'Active-order changes',
        messages: Object.fromEntries(Object.keys(messages).map((name) => [name, { $ref: `#/components/messages/${name}` }])),
      },
    },
    operations: {
      authenticate: {
        action: 'receive',
        channel: { $ref: '#/channels/feed' },
        summary: 'The first text frame: the access token, within 10 s of the upgrade',
        messages: received.map(channelMessage),
      },
      sendOrders: {
        action: 'send',
        channel: { $ref: '#/channels/feed' },
        summary: 'Once authenticated: the snapshot of the active orders, then one frame per change (in seq order)',
        messages: sent.map(channelMessage),
      },
      sendError: {
        action: 'send',
        channel: { $ref: '#/channels/feed' },
        summary: 'An error frame',
        messages: [channelMessage('WsErrorFrame')],
      },
    },
    components: {
      schemas: reachable(openapi.components.schemas, [clientFrames, serverFrames, errorFrames]),
      messages,
    },
  }
}
