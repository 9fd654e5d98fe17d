import t from 'tap'
import { defaultLimit, historyListInput } from '../../../lib/api/history-input.ts'
import { DomainError } from '../../../lib/kernel/errors.ts'

t.test('a request without parameters: the defaults, shared and frozen (issue 30)', async (t) => {
  const empty = () => new URLSearchParams('')
  const v2 = historyListInput(empty(), 'v2', 'UTC')
  t.same(v2, { filter: {}, page: { offset: 0, limit: defaultLimit } })
  t.equal(historyListInput(empty(), 'v2', 'UTC'), v2, 'the same input again')
  t.ok(Object.isFrozen(v2) && Object.isFrozen(v2.filter) && Object.isFrozen(v2.page), 'nobody can change what every such request shares')
  const v1 = historyListInput(empty(), 'v1', 'UTC')
  t.not(v1, v2, 'per version')
  t.same(v1, v2)
  const berlin = historyListInput(empty(), 'v2', 'Europe/Berlin')
  t.not(berlin, v2, 'another timezone: read again')
  t.same(berlin, v2)
})

t.test('parameters are read every time', async (t) => {
  const query = new URLSearchParams('limit=5&offset=10&order_type=TO_GO&created_after=2026-01-01T00:00:00')
  const input = historyListInput(query, 'v2', 'UTC')
  t.same(input.page, { offset: 10, limit: 5 })
  t.match(input.filter, { orderType: 'TO_GO', createdAfter: Date.UTC(2026, 0, 1) })
  t.not(historyListInput(query, 'v2', 'UTC'), input)
  t.throws(() => historyListInput(new URLSearchParams('limit=0'), 'v2', 'UTC'), new DomainError('LIMIT_INVALID'))
})
