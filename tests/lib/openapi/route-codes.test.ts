import t from 'tap'
import { routeCodes } from '../../../lib/openapi/route-codes.ts'
import { contract } from '../../contract/endpoints.ts'

t.test('the OpenAPI route codes agree with the route contract (tests/contract/endpoints.ts)', async (t) => {
  for (const [key, codes] of Object.entries(routeCodes)) {
    const row = contract.find((r) => `${r.method} ${r.path}` === key)
    t.ok(row, `${key} is a contract route`)
    if (row) t.same(codes, { outcomes: row.outcomes, errors: row.errors }, key)
  }
  for (const row of contract.filter((r) => r.path.startsWith('/api/v2') || r.path.startsWith('/api/v1'))) {
    if (!routeCodes[`${row.method} ${row.path}`]) t.comment(`${row.method} ${row.path}: codes come from its config only`)
  }
})
