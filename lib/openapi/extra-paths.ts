// Routes served outside the function manifest, documented by hand: the board and its assets
// (runtime/host/static.ts), this document, and the WebSocket feed (served on the HTTP upgrade).
const html = (description: string) => ({
  description,
  content: { 'text/html': { schema: { type: 'string' } } },
})
const notFound = {
  description: 'No such asset: the v2 not-found envelope (returnCode -5)',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/V2Error' } } },
}
const v2ErrorOf = (status: number, returnCode: number) => ({
  allOf: [{ $ref: '#/components/schemas/V2Error' }, { type: 'object', properties: { status: { const: status }, returnCode: { const: returnCode } } }],
})
const cacheNote = 'Answers carry an ETag and Cache-Control: no-cache; If-None-Match gives 304.'

/** A GET every browser may make without a token, answered with a validator (ETag, 304). */
const openGet = (operationId: string, summary: string, responses: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  get: {
    operationId,
    summary,
    description: cacheNote,
    tags: ['board'],
    security: [{}],
    ...extra,
    responses: { ...responses, '304': { description: 'Not modified' } },
  },
})
const page = (operationId: string, summary: string, what: string) => openGet(operationId, summary, { '200': html(what) })
const jsonDocument = (operationId: string, summary: string) =>
  openGet(operationId, summary, {
    '200': { description: 'The document', content: { 'application/json': { schema: { type: 'object' } } } },
  })
const pathParameter = (name: string, description: string) => ({ name, in: 'path', required: true, schema: { type: 'string' }, description })
const asset = (operationId: string, summary: string, parameters: unknown[]) =>
  openGet(
    operationId,
    summary,
    {
      '200': { description: 'The file, with its content type', content: { '*/*': { schema: { type: 'string' } } } },
      '404': notFound,
    },
    {
      description: `${cacheNote} Paths that leave the asset folder, hidden files and unknown file types are not found.`,
      parameters,
    },
  )

export const extraPaths: Record<string, Record<string, unknown>> = {
  '/': page('board', 'The order board (web app); asks for an access token once and keeps it in the browser', 'The board page'),
  '/docs': page('docs', 'This document rendered for people (local assets only)', 'The documentation page'),
  '/api/openapi.json': jsonDocument('openapi', 'This OpenAPI 3.1 document, generated from the function manifest'),
  '/api/asyncapi.json': jsonDocument(
    'asyncapi',
    'The WebSocket feed (GET /api/v2/websocket) as an AsyncAPI 3.0 document, made from this one: the same frame schemas',
  ),
  '/assets/{file}': asset('asset', 'A static file of the board or the docs page (scripts, styles, images)', [pathParameter('file', 'File name, e.g. app.js')]),
  // The board's own scripts sit in a folder of the web root (web/board/feed.js); a path
  // parameter holds no slash, so the folder is a parameter of its own.
  '/assets/{folder}/{file}': asset('asset_in_folder', 'A static file in a folder of the board or the docs page (e.g. board/feed.js)', [
    pathParameter('folder', 'Folder, e.g. board'),
    pathParameter('file', 'File name, e.g. feed.js'),
  ]),
  '/api/v2/websocket': {
    get: {
      operationId: 'v2_websocket',
      summary: 'Live feed of active-order changes (WebSocket upgrade)',
      description:
        'Upgrade to a WebSocket. The first text frame must be {"accesstoken": "<token>"} within 10 s (else ' +
        '{"status":408,"returnCode":-32} and close; a bad token gives {"status":401,"returnCode":-2} and close; a ' +
        'frame that is not JSON gives {"status":400,"returnCode":-31}). Then the gateway sends ' +
        '{"type":"ACTIVE_ORDERS","count":N,"items":[...]} and one frame per change: the v2 active order fields ' +
        'plus seq and type (ORDER_CREATED, ORDER_MODIFIED, ORDER_PAGED, ORDER_CLEARED). Extension: when the settings ' +
        'of the screen named like the token change, {"type":"SCREEN_SETTINGS","screen":{"name":...,"settings":{...}}} ' +
        '(to that name only; the board applies them at once). The feed only reads: a token of ' +
        'any scope (read or wider) may open it.',
      tags: ['board'],
      security: [{}],
      // The protocol after the upgrade, its frames as component schemas (JSON text frames).
      'x-websocket': {
        clientFrames: [{ $ref: '#/components/schemas/WsTokenFrame' }],
        serverFrames: [
          { $ref: '#/components/schemas/WsActiveOrdersFrame' },
          { $ref: '#/components/schemas/WsOrderChangeFrame' },
          { $ref: '#/components/schemas/WsScreenSettingsFrame' },
          { $ref: '#/components/schemas/V2Error' },
        ],
      },
      parameters: [
        { name: 'Upgrade', in: 'header', required: true, schema: { const: 'websocket' } },
        { name: 'Connection', in: 'header', required: true, schema: { type: 'string', pattern: '[Uu][Pp][Gg][Rr][Aa][Dd][Ee]' } },
      ],
      responses: {
        '101': {
          description:
            'Switching protocols. Errors then come as frames, each followed by a close (1008) except -31: ' +
            '408/-32 no token frame within 10 s, 401/-2 a token that does not verify or a JSON frame without ' +
            'accesstoken, 429/-36 while the address is rate limited, 400/-31 a frame that is not JSON before ' +
            'authentication (the connection stays). Frames after authentication are ignored. A frame over 4 KiB ' +
            'closes with 1009. A token that verifies when its share is taken (32 connections per token) gets 429/-53 and ' +
            'close 1013; one that verifies when every subscriber place was just taken gets {"status":503,"message":...} ' +
            '(no returnCode, as the upgrade refusal) and close 1013.',
          'x-error-frames': {
            oneOf: [
              {
                allOf: [
                  { $ref: '#/components/schemas/V2Error' },
                  { type: 'object', properties: { status: { enum: [400, 401, 408, 429] }, returnCode: { enum: [-31, -2, -32, -36, -53] } } },
                ],
              },
              {
                allOf: [
                  { $ref: '#/components/schemas/V1Error' },
                  { type: 'object', not: { required: ['returnCode'] }, properties: { status: { const: 503 } } },
                ],
              },
            ],
          },
        },
        '400': {
          description:
            'An upgrade the WebSocket handshake refuses (RFC 6455 4.2.1): a Sec-WebSocket-Key that is missing or not 16 ' +
            'bytes in base64, or a Sec-WebSocket-Version other than 13 (or 8). The text says which; then the connection closes.',
          content: { 'text/html': { schema: { type: 'string' } } },
        },
        '403': {
          description: 'A browser page of another site (Origin, Sec-Fetch-Site): cross-site request refused (-39)',
          content: { 'application/json': { schema: v2ErrorOf(403, -39) } },
        },
        '404': {
          description: 'Not a WebSocket upgrade (a plain GET): the route is not found (-5)',
          content: { 'application/json': { schema: v2ErrorOf(404, -5) } },
        },
        '421': {
          description: 'A Host header that names neither this gateway nor one of http.allowedHosts (a rebound name): unknown host (-41)',
          content: { 'application/json': { schema: v2ErrorOf(421, -41) } },
        },
        '429': {
          description:
            'An address that already holds its share of subscribers (48, loopback aside): the upgrade is refused (-53); the message says which share',
          content: { 'application/json': { schema: v2ErrorOf(429, -53) } },
        },
        '503': {
          description:
            'Too many WebSocket clients at once (1000): the upgrade is refused. (Past 16 connections of one address still waiting to authenticate, the oldest of them is cut off instead.)',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/V1Error' } } },
        },
      },
    },
  },
}
