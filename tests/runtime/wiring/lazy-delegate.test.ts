import t from 'tap'
import { delegateToReal, type FetchClass, fetchMembers } from '../../../runtime/wiring/lazy-delegate.ts'

const classes: FetchClass[] = ['Request', 'Response', 'Headers']

t.test("the member lists are Node's own, and each real prototype inherits from Object.prototype", async (t) => {
  for (const name of classes) {
    const prototype = globalThis[name].prototype
    // Node's additions: util.inspect's hook on all three, and an undocumented member of Request's.
    const nodeOwn = new Set<PropertyKey>(['constructor', Symbol.toStringTag, Symbol.for('nodejs.util.inspect.custom'), 'attribute'])
    const own = Reflect.ownKeys(prototype).filter((key) => !nodeOwn.has(key))
    const listed = [...fetchMembers[name].methods, ...fetchMembers[name].getters]
    const byName = (a: PropertyKey, b: PropertyKey) => String(a).localeCompare(String(b))
    t.same([...listed].sort(byName), [...own].sort(byName), name)
    for (const key of fetchMembers[name].methods)
      t.type(Object.getOwnPropertyDescriptor(prototype, key)?.value, 'function', `${name}.${String(key)} is a method`)
    for (const key of fetchMembers[name].getters) t.type(Object.getOwnPropertyDescriptor(prototype, key)?.get, 'function', `${name}.${key} is a getter`)
    t.equal(Object.getPrototypeOf(prototype), Object.prototype)
  }
})

class StandIn {
  readonly status = 201
  realCalls = 0
  #real: Response | undefined
  toResponse(): Response {
    this.realCalls++
    return (this.#real ??= new Response('body text', { status: this.status, headers: { 'x-a': '1' } }))
  }
}
// biome-ignore lint/correctness/noUnusedVariables: merged into the class StandIn, which delegateToReal fills in
interface StandIn extends Response {}
delegateToReal(StandIn, 'Response', (self) => self.toResponse(), { getters: true })

t.test('a stand-in keeps its own members, hands the others to the real one, and is an instance of it', async (t) => {
  const standIn = new StandIn()
  t.equal(standIn.status, 201, 'its own member')
  t.equal(standIn.realCalls, 0)
  t.equal((standIn as unknown as { then?: unknown }).then, undefined, 'not a thenable, as a real Response')
  t.notOk('toJSON' in standIn, 'a key no Response has: answered without the real class')
  t.ok(Symbol.toStringTag in standIn, 'a key only the real prototype has: asked of it')
  t.equal(standIn.realCalls, 0, 'looking for then builds nothing')
  t.equal(standIn.headers.get('x-a'), '1', 'a getter it does not keep')
  t.equal(await standIn.text(), 'body text', 'a method it does not keep')
  t.equal(standIn.realCalls, 2)
  t.ok(standIn instanceof Response)
  t.equal(Object.prototype.toString.call(standIn), '[object Response]')
  t.equal(await Promise.resolve(standIn), standIn, 'awaiting it gives it back')
})

t.test('headers stand-ins delegate methods only, iteration included', async (t) => {
  class HeadersStandIn {
    #real = new Headers({ a: '1', b: '2' })
    real(): Headers {
      return this.#real
    }
  }
  // biome-ignore lint/correctness/noUnusedVariables: merged into the class HeadersStandIn
  interface HeadersStandIn extends Headers {}
  delegateToReal(HeadersStandIn, 'Headers', (self) => self.real(), { getters: false })
  const headers = new HeadersStandIn()
  t.same(
    [...headers],
    [
      ['a', '1'],
      ['b', '2'],
    ],
  )
  t.equal(headers.get('b'), '2')
  t.ok(headers instanceof Headers)
})
