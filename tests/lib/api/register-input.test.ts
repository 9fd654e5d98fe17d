import t from 'tap'
import { registerBody, registerQuery, unregisterQuery } from '../../../lib/api/register-input.ts'
import { DomainError } from '../../../lib/kernel/errors.ts'

t.test('http_client: absent, null or "" is -28; anything the target refuses is -29 with its words', async (t) => {
  t.equal(registerBody.parse({ http_client: 'http://example.com/hook' }).http_client, 'http://example.com/hook')
  for (const body of [{}, { http_client: null }, { http_client: '' }]) t.throws(() => registerBody.parse(body), new DomainError('CALLBACK_MISSING'))
  t.throws(() => registerBody.parse({ http_client: 'ftp://example.com' }), new DomainError('CALLBACK_INVALID', 'only http and https are allowed'))
  t.throws(() => registerBody.parse({ http_client: 5 }), new DomainError('CALLBACK_INVALID', 'http_client must be a string'))
  t.throws(() => registerQuery.parse(new URLSearchParams()), new DomainError('CALLBACK_MISSING'))
  t.throws(
    () => registerQuery.parse(new URLSearchParams({ http_client: `http://a.example/${'x'.repeat(300)}` })),
    new DomainError('CALLBACK_INVALID', 'longer than 256 characters'),
  )
  // DELETE takes the URL in its query only, required like GET v1's.
  t.throws(() => unregisterQuery.parse(new URLSearchParams()), new DomainError('CALLBACK_MISSING'))
  t.throws(() => unregisterQuery.parse(new URLSearchParams({ http_client: '' })), new DomainError('CALLBACK_MISSING'))
})

t.test('the document says string, 1 to the limit, format uri, and required where it is', async (t) => {
  t.match(registerBody.schema(), { required: ['http_client'], properties: { http_client: { type: 'string', minLength: 1, maxLength: 2048, format: 'uri' } } })
  t.match(registerQuery.params(), { http_client: { required: true, schema: { type: 'string', maxLength: 256, format: 'uri' } } })
  t.match(unregisterQuery.params(), { http_client: { required: true, schema: { type: 'string', minLength: 1, maxLength: 256 } } })
})
