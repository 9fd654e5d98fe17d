// What the specification's route table says each route answers (docs/api.md, "Return codes of each path"),
// kept here so the OpenAPI document lists every code even where a function's config does
// not name them all. For v2, numbers below 1000 in `outcomes` are HTTP statuses and those
// above are outcome returnCodes; `errors` are returnCodes. For v1, both are HTTP statuses.
// tests/lib/openapi/route-codes.test.ts holds this table against tests/contract/endpoints.ts;
// a contract row missing here must be documented by its function's config (outcomes, errors).

export interface RouteCodes {
  outcomes: number[]
  errors: number[]
}

export const routeCodes: Record<string, RouteCodes> = {
  'GET /api/v1': { outcomes: [200], errors: [] },
  'GET /api/v1/orders': { outcomes: [200], errors: [400, 412] },
  'GET /api/v1/orders/:uuid': { outcomes: [200], errors: [400, 404] },
  'GET /api/v1/activeorders': { outcomes: [200], errors: [] },
  'POST /api/v1/activeorders': { outcomes: [200], errors: [400] },
  'GET /api/v1/activeorders/:id': { outcomes: [200], errors: [400, 404] },
  'DELETE /api/v1/activeorders/:name': { outcomes: [200], errors: [400, 404] },
  'POST /api/v1/activeorders/:name/page': { outcomes: [200], errors: [400, 404] },
  'GET /api/v1/statistics': { outcomes: [200], errors: [400] },
  'GET /api/v1/register': { outcomes: [200], errors: [400, 404] },
  'GET /api/v2': { outcomes: [200], errors: [] },
  'GET /api/v2/accesstoken': { outcomes: [200], errors: [-1, -2] },
  'DELETE /api/v2/accesstoken': { outcomes: [1001], errors: [-1, -2, -4, -6] },
  'GET /api/v2/accesstoken/generate': { outcomes: [201], errors: [-3, -4] },
  'POST /api/v2/accesstoken/generate': { outcomes: [201], errors: [-1, -2, -4] },
  'GET /api/v2/accesstoken/all': { outcomes: [200], errors: [-1, -2] },
  'GET /api/v2/capabilities': { outcomes: [200], errors: [] },
  'GET /api/v2/activeorders': { outcomes: [200], errors: [-1, -2] },
  'POST /api/v2/activeorders': { outcomes: [200, 1009, 1010], errors: [-1, -2, -8, -9, -10, -11, -12, -31] },
  'DELETE /api/v2/activeorders': { outcomes: [200], errors: [-1, -2] },
  'GET /api/v2/activeorders/:id': { outcomes: [200], errors: [-1, -2, -6, -7] },
  'DELETE /api/v2/activeorders/:id': { outcomes: [200], errors: [-1, -2, -6, -7] },
  'POST /api/v2/activeorders/:id/page': { outcomes: [200], errors: [-1, -2, -6, -7, -13, -31] },
  'GET /api/v2/activeorders/:id/page': { outcomes: [200], errors: [-1, -2, -6, -7] },
  'DELETE /api/v2/activeorders/:id/page': { outcomes: [1002, 1003], errors: [-1, -2, -6, -7, -14] },
  'GET /api/v2/orders': { outcomes: [200], errors: [-1, -2, -10, -12, -23, -24, -25, -26] },
  'GET /api/v2/orders/:uuid': { outcomes: [200], errors: [-1, -2, -6, -27] },
  'GET /api/v2/statistics': { outcomes: [200], errors: [-1, -2, -22] },
  'GET /api/v2/gateway': { outcomes: [200], errors: [-1, -2] },
  'GET /api/v2/gateway/activate': { outcomes: [200], errors: [-1, -2] },
  'POST /api/v2/gateway/activate': { outcomes: [1008, 1011], errors: [-1, -2, -17, -18, -19, -31] },
  'GET /api/v2/gateway/settings': { outcomes: [200], errors: [-1, -2] },
  'POST /api/v2/gateway/settings': { outcomes: [1004], errors: [-1, -2, -20, -21, -45, -48, -31] },
  'GET /api/v2/gateway/check': { outcomes: [200], errors: [-1, -2, -33, -34] },
  'GET /api/v2/repeaters': { outcomes: [200], errors: [-1, -2, -15] },
  'DELETE /api/v2/repeaters': { outcomes: [1006], errors: [-1, -2] },
  'POST /api/v2/repeaters/beginPairing': { outcomes: [1012, 1013], errors: [-1, -2, -16, -31] },
  'POST /api/v2/repeaters/endPairing': { outcomes: [1013], errors: [-1, -2, -31] },
  'GET /api/v2/trackers': { outcomes: [200], errors: [-1, -2] },
  'DELETE /api/v2/trackers': { outcomes: [1007], errors: [-1, -2] },
  'GET /api/v2/register': { outcomes: [200], errors: [-1, -2] },
  'POST /api/v2/register': { outcomes: [1005], errors: [-1, -2, -28, -29, -30, -31] },
  'DELETE /api/v2/register': { outcomes: [200], errors: [-1, -2, -28, -29, -30] },
  'GET /api/v2/websocket': { outcomes: [], errors: [-2, -31, -32] },
  // Extensions (docs/api.md); their function configs should name these codes as well.
  'GET /api/v2/register/jwks': { outcomes: [200], errors: [] },
  'GET /api/v2/simulator': { outcomes: [200], errors: [-1, -2, -5] },
  'POST /api/v2/simulator/start': { outcomes: [200], errors: [-1, -2, -5, -31, -38] },
  'POST /api/v2/simulator/place': { outcomes: [200], errors: [-1, -2, -5, -31, -38] },
  'POST /api/v2/simulator/clear': { outcomes: [200], errors: [-1, -2, -5, -31, -38] },
  'GET /api/v2/statistics/hourly': { outcomes: [200], errors: [-1, -2, -22, -25] },
  'GET /api/v2/floor': { outcomes: [200], errors: [-1, -2] },
  'POST /api/v2/floor': { outcomes: [200], errors: [-1, -2, -21, -31] },
  'GET /api/v2/gateway/tls': { outcomes: [200], errors: [] },
  'GET /api/v2/board/settings': { outcomes: [200], errors: [-1, -2] },
  'POST /api/v2/board/settings': { outcomes: [200], errors: [-1, -2, -20, -21, -31] },
  'GET /api/v2/board/screens': { outcomes: [200], errors: [-1, -2] },
  'POST /api/v2/board/screens/:name': { outcomes: [200], errors: [-1, -2, -4, -20, -21, -31] },
  'POST /api/v2/orders/:uuid/recall': { outcomes: [200, 1009, 1010], errors: [-1, -2, -27, -6] },
  'GET /api/v2/metrics': { outcomes: [200], errors: [-1, -2] },
}
