// The specification's route table, the repository's copy of it (codes: docs/api.md). Each route's
// auth stance is stated here, so a new route without an entry fails tests/manifest.test.ts.
// auth: 'none' | 'bearer' | 'button' (open, the button window decides) | 'first-frame' (WebSocket).

export interface ContractRoute {
  method: 'GET' | 'POST' | 'DELETE'
  path: string
  auth: 'none' | 'bearer' | 'button' | 'first-frame'
  code?: number
  outcomes: number[]
  errors: number[]
}

export const contract: ContractRoute[] = [
  { method: 'GET', path: '/api/v1', auth: 'none', outcomes: [200], errors: [] },
  { method: 'GET', path: '/api/v1/orders', auth: 'none', outcomes: [200], errors: [400, 412] },
  { method: 'GET', path: '/api/v1/orders/:uuid', auth: 'none', outcomes: [200], errors: [400, 404] },
  { method: 'GET', path: '/api/v1/activeorders', auth: 'none', outcomes: [200], errors: [] },
  { method: 'POST', path: '/api/v1/activeorders', auth: 'none', outcomes: [200], errors: [400] },
  { method: 'GET', path: '/api/v1/activeorders/:id', auth: 'none', outcomes: [200], errors: [400, 404] },
  { method: 'DELETE', path: '/api/v1/activeorders/:name', auth: 'none', outcomes: [200], errors: [400, 404] },
  { method: 'POST', path: '/api/v1/activeorders/:name/page', auth: 'none', outcomes: [200], errors: [400, 404] },
  { method: 'GET', path: '/api/v1/statistics', auth: 'none', outcomes: [200], errors: [400] },
  { method: 'GET', path: '/api/v1/register', auth: 'none', outcomes: [200], errors: [400, 404] },
  { method: 'GET', path: '/api/v2', auth: 'none', code: 20, outcomes: [200], errors: [] },
  { method: 'GET', path: '/api/v2/accesstoken', auth: 'bearer', code: 1, outcomes: [200], errors: [-1, -2] },
  { method: 'DELETE', path: '/api/v2/accesstoken', auth: 'bearer', code: 1, outcomes: [1001], errors: [-1, -2, -4, -6] },
  { method: 'GET', path: '/api/v2/accesstoken/generate', auth: 'button', code: 2, outcomes: [201], errors: [-3, -4] },
  { method: 'POST', path: '/api/v2/accesstoken/generate', auth: 'bearer', code: 2, outcomes: [201], errors: [-1, -2, -4] },
  { method: 'GET', path: '/api/v2/accesstoken/all', auth: 'bearer', code: 3, outcomes: [200], errors: [-1, -2] },
  { method: 'GET', path: '/api/v2/capabilities', auth: 'none', code: 4, outcomes: [200], errors: [] },
  { method: 'GET', path: '/api/v2/activeorders', auth: 'bearer', code: 5, outcomes: [200], errors: [-1, -2] },
  { method: 'POST', path: '/api/v2/activeorders', auth: 'bearer', code: 5, outcomes: [200, 1009, 1010], errors: [-1, -2, -8, -9, -10, -11, -12, -31] },
  { method: 'DELETE', path: '/api/v2/activeorders', auth: 'bearer', code: 5, outcomes: [200], errors: [-1, -2] },
  { method: 'GET', path: '/api/v2/activeorders/:id', auth: 'bearer', code: 6, outcomes: [200], errors: [-1, -2, -6, -7] },
  { method: 'DELETE', path: '/api/v2/activeorders/:id', auth: 'bearer', code: 6, outcomes: [200], errors: [-1, -2, -6, -7] },
  { method: 'POST', path: '/api/v2/activeorders/:id/page', auth: 'bearer', code: 7, outcomes: [200], errors: [-1, -2, -6, -7, -13, -31] },
  { method: 'GET', path: '/api/v2/activeorders/:id/page', auth: 'bearer', code: 7, outcomes: [200], errors: [-1, -2, -6, -7] },
  { method: 'DELETE', path: '/api/v2/activeorders/:id/page', auth: 'bearer', code: 7, outcomes: [1002, 1003], errors: [-1, -2, -6, -7, -14] },
  { method: 'GET', path: '/api/v2/orders', auth: 'bearer', code: 8, outcomes: [200], errors: [-1, -2, -10, -12, -23, -24, -25, -26] },
  { method: 'GET', path: '/api/v2/orders/:uuid', auth: 'bearer', code: 9, outcomes: [200], errors: [-1, -2, -6, -27] },
  { method: 'GET', path: '/api/v2/statistics', auth: 'bearer', code: 10, outcomes: [200], errors: [-1, -2, -22] },
  { method: 'GET', path: '/api/v2/gateway', auth: 'bearer', code: 11, outcomes: [200], errors: [-1, -2] },
  { method: 'GET', path: '/api/v2/gateway/activate', auth: 'bearer', code: 12, outcomes: [200], errors: [-1, -2] },
  { method: 'POST', path: '/api/v2/gateway/activate', auth: 'bearer', code: 12, outcomes: [1008, 1011], errors: [-1, -2, -17, -18, -19, -31] },
  { method: 'GET', path: '/api/v2/gateway/settings', auth: 'bearer', code: 13, outcomes: [200], errors: [-1, -2] },
  { method: 'POST', path: '/api/v2/gateway/settings', auth: 'bearer', code: 13, outcomes: [1004], errors: [-1, -2, -20, -21, -45, -48, -31] },
  { method: 'GET', path: '/api/v2/gateway/check', auth: 'bearer', code: 14, outcomes: [200], errors: [-1, -2, -33, -34] },
  { method: 'GET', path: '/api/v2/repeaters', auth: 'bearer', code: 15, outcomes: [200], errors: [-1, -2, -15] },
  { method: 'DELETE', path: '/api/v2/repeaters', auth: 'bearer', code: 15, outcomes: [1006], errors: [-1, -2] },
  { method: 'POST', path: '/api/v2/repeaters/beginPairing', auth: 'bearer', code: 16, outcomes: [1012, 1013], errors: [-1, -2, -16, -31] },
  { method: 'POST', path: '/api/v2/repeaters/endPairing', auth: 'bearer', code: 17, outcomes: [1013], errors: [-1, -2, -31] },
  { method: 'GET', path: '/api/v2/trackers', auth: 'bearer', code: 18, outcomes: [200], errors: [-1, -2] },
  { method: 'DELETE', path: '/api/v2/trackers', auth: 'bearer', code: 18, outcomes: [1007], errors: [-1, -2] },
  { method: 'GET', path: '/api/v2/register', auth: 'bearer', code: 19, outcomes: [200], errors: [-1, -2] },
  { method: 'POST', path: '/api/v2/register', auth: 'bearer', code: 19, outcomes: [1005], errors: [-1, -2, -28, -29, -30, -31] },
  { method: 'DELETE', path: '/api/v2/register', auth: 'bearer', code: 19, outcomes: [200], errors: [-1, -2, -28, -29, -30] },
  { method: 'GET', path: '/api/v2/websocket', auth: 'first-frame', outcomes: [], errors: [-2, -31, -32] },
  // extension: the webhook signing key (public) as a JWKS document
  { method: 'GET', path: '/api/v2/register/jwks', auth: 'none', code: 19, outcomes: [200], errors: [] },
  // extension: simulator (the virtual restaurant the board drives; 404/-5 when the radio is not simulated)
  { method: 'GET', path: '/api/v2/simulator', auth: 'bearer', code: 21, outcomes: [200], errors: [-1, -2, -5] },
  { method: 'POST', path: '/api/v2/simulator/start', auth: 'bearer', code: 21, outcomes: [200], errors: [-1, -2, -5, -31, -38] },
  { method: 'POST', path: '/api/v2/simulator/place', auth: 'bearer', code: 21, outcomes: [200], errors: [-1, -2, -5, -31, -38] },
  { method: 'POST', path: '/api/v2/simulator/clear', auth: 'bearer', code: 21, outcomes: [200], errors: [-1, -2, -5, -31, -38] },
  // extension: the manager's charts (hour by hour, today or the last 7 days)
  { method: 'GET', path: '/api/v2/statistics/hourly', auth: 'bearer', code: 10, outcomes: [200], errors: [-1, -2, -22, -25] },
  // extension: the floor plan the board draws
  { method: 'GET', path: '/api/v2/floor', auth: 'bearer', code: 22, outcomes: [200], errors: [-1, -2] },
  { method: 'POST', path: '/api/v2/floor', auth: 'bearer', code: 22, outcomes: [200], errors: [-1, -2, -21, -31] },
  // extension: a new screen signs in with a code a signed-in screen approves
  { method: 'POST', path: '/api/v2/board/pairing', auth: 'none', code: 23, outcomes: [201], errors: [-4, -31, -44] },
  { method: 'GET', path: '/api/v2/board/pairing/:id', auth: 'none', code: 23, outcomes: [200], errors: [-43] },
  { method: 'POST', path: '/api/v2/board/pairing/approve', auth: 'bearer', code: 23, outcomes: [201], errors: [-1, -2, -4, -31, -36, -42] },
  // extension: the gateway's clock set from a signed-in board while the system clock is not synchronised
  { method: 'POST', path: '/api/v2/gateway/clock', auth: 'bearer', code: 11, outcomes: [200], errors: [-1, -2, -21, -31, -36] },
  // Ours (radio upkeep, docs/api.md "Radio upkeep").
  { method: 'GET', path: '/api/v2/radio/devices', auth: 'bearer', code: 24, outcomes: [200], errors: [-1, -2, -5, -46] },
  { method: 'POST', path: '/api/v2/radio/devices/:address/interview', auth: 'bearer', code: 24, outcomes: [200], errors: [-1, -2, -5, -47, -46] },
  { method: 'DELETE', path: '/api/v2/radio/devices/:address', auth: 'bearer', code: 24, outcomes: [200], errors: [-1, -2, -5, -47, -46, -48] },
  { method: 'GET', path: '/api/v2/radio/map', auth: 'bearer', code: 24, outcomes: [200], errors: [-1, -2, -5, -46] },
  // extension: recall a cleared order with its original start (docs/api.md, "Recall")
  { method: 'POST', path: '/api/v2/orders/:uuid/recall', auth: 'bearer', code: 9, outcomes: [200, 1009, 1010], errors: [-1, -2, -27, -6] },
  // extension: each named screen's settings, kept on the gateway (docs/api.md, "Screen settings")
  { method: 'GET', path: '/api/v2/board/settings', auth: 'bearer', code: 26, outcomes: [200], errors: [-1, -2] },
  { method: 'POST', path: '/api/v2/board/settings', auth: 'bearer', code: 26, outcomes: [200], errors: [-1, -2, -20, -21, -31] },
  { method: 'GET', path: '/api/v2/board/screens', auth: 'bearer', code: 26, outcomes: [200], errors: [-1, -2] },
  { method: 'POST', path: '/api/v2/board/screens/:name', auth: 'bearer', code: 26, outcomes: [200], errors: [-1, -2, -4, -20, -21, -31] },
  // extension: the HTTPS port and certificate fingerprints, open for the board's sign-in screen
  { method: 'GET', path: '/api/v2/gateway/tls', auth: 'none', code: 25, outcomes: [200], errors: [] },
  // extension: Prometheus' text format for a scraper with a read token (docs/api.md, "Metrics")
  { method: 'GET', path: '/api/v2/metrics', auth: 'bearer', code: 26, outcomes: [200], errors: [-1, -2] },
]
