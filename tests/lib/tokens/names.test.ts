import fc from 'fast-check'
import t from 'tap'
import { tokenName } from '../../../lib/tokens/names.ts'

t.test('names: default, allowed characters, 1-64', async (t) => {
  t.equal(tokenName(undefined), 'default')
  t.equal(tokenName('POS_1-kitchen'), 'POS_1-kitchen')
  for (const bad of ['', ' ', 'a b', 'a.b', 'a/b', 'é', 'x'.repeat(65), '$gt', '__proto__x!']) {
    t.throws(() => tokenName(bad), { name: 'DomainError', message: 'TOKEN_NAME_INVALID' }, JSON.stringify(bad))
  }
})

t.test('property: accepted exactly when made of [A-Za-z0-9_-]{1,64}', async () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 70 }), (text) => {
      let ok = true
      try {
        tokenName(text)
      } catch {
        ok = false
      }
      return ok === /^[A-Za-z0-9_-]{1,64}$/.test(text)
    }),
  )
})
