// The document as client generators read it (openapi-typescript, openapi-fetch, linters): the
// schemas built from the input schemas say exactly what the server accepts on the wire, which
// generators cannot all express. This pass keeps that exact schema beside each parameter and
// request body as `x-wire-schema` (the fuzz tests hold the server to it) and gives generators:
// - query and path parameters typed as what they mean: a digit pattern is `type: integer` with
//   its range, "true"/"false" is `type: boolean` (a parameter is text on the wire; the client's
//   serialisation makes 10 into "10"), defaults of the schema's type;
// - no recursive JSON type: SafeJsonValue is any JSON value (its rule for keys at any depth is in
//   its description and in `components.x-wire-schemas`, which the wire schemas refer to).
import type { JsonSchema } from '../api/function-config.ts'
import { safeJsonValueRef } from '../api/input-schema.ts'

type Doc = { paths: Record<string, Record<string, any>>; components: Record<string, any> }

export const wireSafeJsonValueRef = '#/components/x-wire-schemas/SafeJsonValue'

const matches = (pattern: RegExp, n: number | string) => pattern.test(String(n))

/**
 * The integers (or numbers) a text pattern accepts, when it accepts exactly the decimals of one
 * range (leading zeros aside): found by probing the pattern, so it stays true when the pattern changes.
 */
export function numericRange(source: string): { type: 'integer' | 'number'; minimum?: number; exclusiveMinimum?: number; maximum?: number } | undefined {
  const pattern = new RegExp(source)
  if (!matches(pattern, 1) && !matches(pattern, 0)) return undefined
  if (['a', '', ' ', '1a', '0x1'].some((text) => matches(pattern, text))) return undefined
  if (matches(pattern, '1.5')) {
    // Decimals: a positive number (its upper bound is far beyond any use).
    return matches(pattern, '0.5') && !matches(pattern, 0) && !matches(pattern, '-1') ? { type: 'number', exclusiveMinimum: 0 } : undefined
  }
  const low = matches(pattern, 0) ? 0 : 1
  // The largest accepted integer, by bisection (every pattern here is a range); none past 10^15.
  const ceiling = 1e15
  let good = low
  let bad = ceiling
  while (bad - good > 1) {
    const mid = Math.floor((good + bad) / 2)
    if (matches(pattern, mid)) good = mid
    else bad = mid
  }
  // A pattern with holes is no range: check a spread of integers inside it.
  for (let i = 0; i <= 64; i++) if (!matches(pattern, low + Math.floor(((good - low) * i) / 64))) return undefined
  return { type: 'integer', minimum: low, ...(good < ceiling - 1 ? { maximum: good } : {}) }
}

/** A parameter's schema as generators should type it, or undefined to keep it. */
export function typedParameter(schema: JsonSchema): JsonSchema | undefined {
  if (schema.type !== 'string') return undefined
  const { default: fallback, maxLength: _max, pattern, enum: values, type: _type, ...rest } = schema as JsonSchema & { default?: unknown }
  if (Array.isArray(values) && values.length === 2 && values.includes('true') && values.includes('false')) {
    return { ...rest, type: 'boolean', ...(fallback === undefined ? {} : { default: String(fallback) === 'true' }) }
  }
  const range = typeof pattern === 'string' && !values ? numericRange(pattern) : undefined
  if (range) {
    return {
      ...rest,
      ...range,
      ...(fallback === undefined ? {} : { default: Number(fallback) }),
    }
  }
  if (fallback !== undefined && typeof fallback !== 'string') return { ...schema, default: String(fallback) }
  return undefined
}

/** A copy of a schema whose SafeJsonValue refs name the exact (recursive) one. */
function toWire(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema).replaceAll(`"${safeJsonValueRef}"`, `"${wireSafeJsonValueRef}"`))
}

/** A schema with its SafeJsonValue $refs (the recursive one) replaced by "any value". */
function withoutSafeJson(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutSafeJson)
  if (!schema || typeof schema !== 'object') return schema
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'additionalProperties' && (value as { $ref?: string })?.$ref === safeJsonValueRef) continue
    if (key === 'propertyNames') continue
    out[key] = withoutSafeJson(value)
  }
  return out
}

export function forGenerators<T extends Doc>(doc: T): T {
  const safe = doc.components.schemas?.SafeJsonValue
  if (safe) {
    doc.components['x-wire-schemas'] = { SafeJsonValue: toWire(safe) }
    doc.components.schemas.SafeJsonValue = { description: safe.description }
  }
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item)) {
      if (!op || typeof op !== 'object') continue
      for (const param of op.parameters ?? []) {
        if (param.in !== 'query' && param.in !== 'path') continue
        const typed = typedParameter(param.schema)
        if (typed) {
          param['x-wire-schema'] = param.schema
          param.schema = typed
        }
      }
      const media = op.requestBody?.content?.['application/json']
      if (media?.schema && JSON.stringify(media.schema).includes(safeJsonValueRef)) {
        media['x-wire-schema'] = toWire(media.schema)
        media.schema = withoutSafeJson(media.schema)
      }
    }
  }
  return doc
}
