// Routes served outside the function manifest, documented by hand: the board and its assets
// (runtime/static.ts), this document, and the WebSocket feed (served on the HTTP upgrade).
const html = (description: string) => ({
  description,
  content: { 'text/html': { schema: { type: 'string' } } },
})
const notFound = {
  description: 'No such asset: the v2 not-found envelope (returnCode -5)',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/V2Error' } } },
}
const cacheNote = 'Answers carry an ETag and Cache-Control: no-cache; If-None-Match gives 304.'

export const extraPaths: Record<string, Record<string, unknown>> = {
  '/': {
    get: {
      operationId: 'board',
      summary: 'The order board (web app); asks for an access token once and keeps it in the browser',
      description: cacheNote,
      tags: ['board'],
      security: [{}],
      responses: { '200': html('The board page'), '304': { description: 'Not modified' } },
    },
  },
  '/docs': {
    get: {
      operationId: 'docs',
      summary: 'This document rendered for people (local assets only)',
      description: cacheNote,
      tags: ['board'],
      security: [{}],
      responses: { '200': html('The documentation page'), '304': { description: 'Not modified' } },
    },
  },
  '/api/openapi.json': {
    get: {
      operationId: 'openapi',
      summary: 'This OpenAPI 3.1 document, generated from the function manifest',
      description: cacheNote,
      tags: ['board'],
      security: [{}],
      responses: {
        '200': { description: 'The document', content: { 'application/json': { schema: { type: 'object' } } } },
        '304': { description: 'Not modified' },
      },
    },
  },
  '/assets/{file}': {
    get: {
      operationId: 'asset',
      summary: 'A static file of the board or the docs page (scripts, styles, images)',
      description: `${cacheNote} Paths that leave the asset folder, hidden files and unknown file types are not found.`,
      tags: ['board'],
      security: [{}],
      parameters: [{ name: 'file', in: 'path', required: true, schema: { type: 'string' }, description: 'File name, e.g. app.js' }],
      responses: {
        '200': { description: 'The file, with its content type', content: { '*/*': { schema: { type: 'string' } } } },
        '304': { description: 'Not modified' },
        '404': notFound,
      },
    },
  },
  '/api/v2/websocket': {
    get: {
      operationId: 'v2_websocket',
      summary: 'Live feed of active-order changes (WebSocket upgrade)',
      description:
        'Upgrade to a WebSocket. The first text frame must be {"accesstoken": "<token>"} within 10 s (else ' +
        '{"status":408,"returnCode":-32} and close; a bad token gives {"status":401,"returnCode":-2} and close; a ' +
        'frame that is not JSON gives {"status":400,"returnCode":-31}). Then the gateway sends ' +
        '{"type":"ACTIVE_ORDERS","count":N,"items":[...]} and one frame per change: the v2 active order fields ' +
        'plus seq and type (ORDER_CREATED, ORDER_MODIFIED, ORDER_PAGED, ORDER_CLEARED).',
      tags: ['board'],
      security: [{}],
      responses: { '101': { description: 'Switching protocols' } },
    },
  },
}
