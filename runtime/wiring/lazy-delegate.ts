// The light stand-ins for fetch objects (NodeRequest, NodeHeaders, JsonResponse,
// BytesResponse) keep a few members as plain fields and hand every other member of the real
// class to a real instance they build on first use. This installs those hand-offs on a
// stand-in's prototype, and makes the stand-in an instance of the real class.
//
// Node implements Request, Response and Headers in undici, which it loads the first time any
// of the three globals is read: about 12 MB resident in the gateway, and a fifth of the
// modules Node compiles at start-up (docs/decisions/0013-load-only-what-is-used.md). So nothing here reads
// a global before a stand-in is really asked for something it does not keep: the members come
// from the fetch standard's interfaces below, and the prototype link goes through a proxy that
// looks the real prototype up when the chain is walked past the stand-in's own members
// (instanceof, a member nobody kept).

export type FetchClass = 'Request' | 'Response' | 'Headers'

interface Members {
  methods: readonly PropertyKey[]
  getters: readonly string[]
}

const body: Members = { methods: ['arrayBuffer', 'blob', 'bytes', 'clone', 'formData', 'json', 'text'], getters: ['body', 'bodyUsed'] }

/** The members of each interface (WHATWG Fetch), kept equal to Node's by tests/runtime/wiring/lazy-delegate.test.ts. */
export const fetchMembers: Record<FetchClass, Members> = {
  Request: {
    methods: body.methods,
    getters: [
      ...body.getters,
      'cache',
      'credentials',
      'destination',
      'duplex',
      'headers',
      'integrity',
      'isHistoryNavigation',
      'isReloadNavigation',
      'keepalive',
      'method',
      'mode',
      'redirect',
      'referrer',
      'referrerPolicy',
      'signal',
      'url',
    ],
  },
  Response: {
    methods: body.methods,
    getters: [...body.getters, 'headers', 'ok', 'redirected', 'status', 'statusText', 'type', 'url'],
  },
  Headers: {
    methods: ['append', 'delete', 'entries', 'forEach', 'get', 'getSetCookie', 'has', 'keys', 'set', 'values', Symbol.iterator],
    getters: [],
  },
}

// Node's own addition to the three prototypes, read by util.inspect.
const inspectCustom = Symbol.for('nodejs.util.inspect.custom')

const realPrototypeOf = (name: FetchClass): object => (globalThis[name] as { prototype: object }).prototype

/**
 * Stands for the real prototype in the stand-in's chain. A real prototype holds the
 * interface's members, `constructor`, `Symbol.toStringTag` and util.inspect's symbol (on
 * Node 24 also an undocumented `attribute` on Request's, unreachable here until the real
 * prototype is linked) and inherits from Object.prototype (both checked by the tests): any
 * other key, such as `toJSON`, is answered from Object.prototype without loading the real
 * class. Once the real prototype is needed, it replaces this proxy in the chain.
 */
function lazyPrototype(name: FetchClass, standInPrototype: object): object {
  const { methods, getters } = fetchMembers[name]
  const real = new Set<PropertyKey>([...methods, ...getters, 'constructor', Symbol.toStringTag, inspectCustom])
  const realPrototype = () => {
    const prototype = realPrototypeOf(name)
    Object.setPrototypeOf(standInPrototype, prototype)
    return prototype
  }
  return new Proxy(
    {},
    {
      getPrototypeOf: () => realPrototype(),
      get: (_target, key, receiver) => Reflect.get(real.has(key) ? realPrototype() : Object.prototype, key, receiver),
      has: (_target, key) => (real.has(key) ? Reflect.has(realPrototype(), key) : Reflect.has(Object.prototype, key)),
    },
  )
}

/**
 * For each method (and, with `getters`, each getter) of the real class that `standIn` does not
 * define itself, defines one on `standIn.prototype` that asks `realOf(this)`; then chains the
 * stand-in's prototype to the real one, looked up lazily.
 */
export function delegateToReal<T>(standIn: { prototype: T }, real: FetchClass, realOf: (self: T) => object, options: { getters: boolean }): void {
  const prototype = standIn.prototype as object
  const { methods, getters } = fetchMembers[real]
  for (const key of methods) {
    if (Object.hasOwn(prototype, key)) continue
    Object.defineProperty(prototype, key, {
      value(this: T, ...args: unknown[]) {
        const target = realOf(this) as Record<PropertyKey, (...a: unknown[]) => unknown>
        return target[key](...args)
      },
    })
  }
  if (options.getters) {
    for (const key of getters) {
      if (Object.hasOwn(prototype, key)) continue
      Object.defineProperty(prototype, key, {
        get(this: T) {
          return (realOf(this) as Record<PropertyKey, unknown>)[key]
        },
      })
    }
  }
  // Every `await` of a stand-in (each answer, several times on its way out) asks for `then`.
  // Found here, as the undefined it is on a real one, that lookup stays off the proxy: the
  // proxy's trap cost 0.3 µs per await, a few percent of an answer's CPU.
  if (!Object.hasOwn(prototype, 'then')) Object.defineProperty(prototype, 'then', { value: undefined })
  Object.setPrototypeOf(prototype, lazyPrototype(real, prototype))
}
