// A record whose values are made the first time each is read, then kept. The routes' configs
// document their query parameters and bodies as JSON Schema, made with z.toJSONSchema; only
// the OpenAPI document reads them, and making them all as the function files load was about
// 10 ms of a restart's CPU profile (issue 30). Reading a value (a property access, Object.entries,
// JSON.stringify, structuredClone) makes it; the record looks like a plain one otherwise.
export function lazyRecord<T>(keys: readonly string[], make: (key: string) => T): Record<string, T> {
  const record: Record<string, T> = {}
  for (const key of keys) {
    Object.defineProperty(record, key, {
      enumerable: true,
      configurable: true,
      get() {
        const value = make(key)
        Object.defineProperty(record, key, { value, enumerable: true, configurable: true, writable: true })
        return value
      },
    })
  }
  return record
}
