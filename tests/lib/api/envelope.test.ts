import t from 'tap'
import { errorEnvelope, okEnvelope, toDomainError, v2Errors } from '../../../lib/api/envelope.ts'
import { DomainError, errorKinds } from '../../../lib/kernel/errors.ts'

t.test('every error kind maps to a negative code and an HTTP error status', async (t) => {
  for (const kind of errorKinds) {
    const mapping = v2Errors[kind]
    t.ok(mapping.code < 0, `${kind} code`)
    t.ok(mapping.status >= 400 && mapping.status < 600, `${kind} status`)
    t.ok(mapping.message().length > 0, `${kind} message`)
  }
})

t.test('v2 errors carry returnCode, v1 errors never do', async (t) => {
  const v2 = errorEnvelope('v2', new DomainError('ORDER_NOT_FOUND'))
  t.same(v2.body, { status: 404, returnCode: -6, message: 'Order not found' })
  const v1 = errorEnvelope('v1', new DomainError('ORDER_NOT_FOUND'))
  t.same(v1.body, { status: 404, message: 'The order is inactive or does not exist' })
})

t.test('v1 answers 412 for limit over 100, v2 400/-26', async (t) => {
  t.equal(errorEnvelope('v1', new DomainError('LIMIT_TOO_LARGE')).status, 412)
  t.match(errorEnvelope('v2', new DomainError('LIMIT_TOO_LARGE')).body, { status: 400, returnCode: -26 })
})

t.test('details and Retry-After', async (t) => {
  const env = errorEnvelope('v2', new DomainError('SETTINGS_KEY_UNKNOWN', 'colour'))
  t.equal(env.body.message, 'Invalid settings key: colour')
  const limited = errorEnvelope('v2', new DomainError('RATE_LIMITED', undefined, { retryAfter: 30 }))
  t.same(limited.headers, { 'retry-after': '30' })
})

t.test('success envelopes: default code, outcomes, v1 without returnCode', async (t) => {
  t.same(okEnvelope('v2', 7, { paged: true }).body, { status: 200, returnCode: 7, paged: true })
  t.same(okEnvelope('v2', 7, {}, { outcome: 'PAGING_CANCELLED' }).body, { status: 200, returnCode: 1002 })
  t.same(okEnvelope('v1', undefined, { count: '0' }).body, { status: 200, count: '0' })
  t.equal(okEnvelope('v2', 2, {}, { status: 201 }).status, 201)
})

t.test('anything not a DomainError becomes INTERNAL', async (t) => {
  t.equal(toDomainError(new TypeError('x')).kind, 'INTERNAL')
  const known = new DomainError('JSON_INVALID')
  t.equal(toDomainError(known), known)
})
