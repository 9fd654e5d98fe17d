// The light stand-ins for fetch objects (NodeRequest, NodeHeaders, JsonResponse) keep a few
// members as plain fields and hand every other member of the real class to a real instance
// they build on first use. This installs those hand-offs on a stand-in's prototype.

/**
 * For each method (and, with `getters`, each getter) of `real.prototype` that `standIn`
 * does not define itself, defines one on `standIn.prototype` that asks `realOf(this)`.
 */
export function delegateToReal<T>(
  standIn: { prototype: T },
  real: { prototype: object },
  realOf: (self: T) => object,
  options: { getters: boolean },
): void {
  for (const key of Reflect.ownKeys(real.prototype)) {
    if (key === 'constructor' || Object.hasOwn(standIn.prototype as object, key)) continue
    const descriptor = Object.getOwnPropertyDescriptor(real.prototype, key)
    if (typeof descriptor?.value === 'function') {
      Object.defineProperty(standIn.prototype, key, {
        value(this: T, ...args: unknown[]) {
          const target = realOf(this) as Record<PropertyKey, (...a: unknown[]) => unknown>
          return target[key](...args)
        },
      })
    } else if (options.getters && descriptor?.get) {
      Object.defineProperty(standIn.prototype, key, {
        get(this: T) {
          return (realOf(this) as Record<PropertyKey, unknown>)[key]
        },
      })
    }
  }
}
