// Hostile requests for one manifest route: odd path segments, query values and bodies
// (malformed JSON, operator and prototype keys, deep nesting, oversized), and odd
// Authorization headers. Used by tests/hostile/routes.test.ts (never a 5xx, nothing changed
// by a refusal) and tests/runtime/hosts.test.ts (both hosts answer alike).
import fc from 'fast-check'
import type { ManifestEntry } from '../../runtime/host/function-types.ts'

export const seed = Number(process.env.FUZZ_SEED ?? 20261122)

const oddSegment = fc.oneof(
  fc.constantFrom(
    '1',
    '0',
    '-1',
    '007',
    'abc',
    '1.5',
    '1e3',
    '99999999999999999999',
    '..',
    '%2e%2e',
    '%00',
    '$gt',
    '__proto__',
    'constructor',
    '6f9619ff-8b86-d011-b42d-00c04fc964ff',
    '6F9619FF-8B86-D011-B42D-00C04FC964FF',
    'x'.repeat(300),
  ),
  fc.string({ maxLength: 40 }).map(encodeURIComponent),
)

const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    '',
    '0',
    '-1',
    '1',
    '101',
    'true',
    'false',
    'TO_GO',
    'ON_PREMISES',
    'yes',
    '$gt',
    '__proto__',
    'x'.repeat(300),
    '2026-11-22T10:00:00',
    '2026-11-22 10:00:00',
    '2026-02-30T00:00:00',
    '123-4567-890',
    'Europe/Paris',
    null,
    true,
    0,
    -5,
    3.7,
    1e308,
  ),
  fc.string({ maxLength: 30 }),
  fc.integer(),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.constantFrom('$gt', '$ne', '__proto__', 'a'), fc.integer(), { maxKeys: 2 }),
)

const commonKeys = [
  'name',
  'orderType',
  'locationName',
  'tracking',
  'timeout',
  'refresh',
  'limit',
  'offset',
  'created_after',
  'created_before',
  'order_type',
  'location_name',
  'target_time',
  'http_client',
  'deviceCode',
  'timezone',
  'targetTimeDefault',
  'zigbeePreset',
  'dummy_tracker_address',
  'tracker',
  'table',
  'toGo',
]

function keysOf(entry: ManifestEntry): string[] {
  const bodyProps = Object.keys((entry.body?.properties as Record<string, unknown> | undefined) ?? {})
  return [...new Set([...Object.keys(entry.query ?? {}), ...bodyProps, ...commonKeys])]
}

/** Register routes probe URLs: keep fuzzed values from ever being a reachable URL. */
function defuse(entry: ManifestEntry, value: unknown): unknown {
  if (!entry.path.includes('/register')) return value
  return JSON.parse(JSON.stringify(value ?? null, (_k, v) => (typeof v === 'string' && v.includes(':') ? 'not-a-url' : v)))
}

let deep = '1'
for (let i = 0; i < 40; i++) deep = `{"a":${deep}}`

const rawBodies = fc.constantFrom(
  '{',
  '{"name":',
  'null',
  '[]',
  '"text"',
  '{"a":1}{"b":2}',
  '\u0000',
  deep,
  `{"pad":"${'x'.repeat(17 * 1024)}"}`,
  '{"__proto__":{"admin":true}}',
  '{"constructor":{"prototype":{}}}',
)

export function requestArbitrary(entry: ManifestEntry) {
  const keys = keysOf(entry)
  const path = fc.array(oddSegment, { minLength: 3, maxLength: 3 }).map((segments) => {
    let i = 0
    return entry.path.replace(/:\w+/g, () => segments[i++])
  })
  const query = fc.dictionary(fc.constantFrom(...keys), oddValue, { maxKeys: 4 }).map((q) =>
    Object.entries(defuse(entry, q) as Record<string, unknown>)
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v))}`)
      .join('&'),
  )
  const body = fc.oneof(
    fc.constant(undefined),
    fc.dictionary(fc.constantFrom(...keys), oddValue, { maxKeys: 5 }).map((b) => JSON.stringify(defuse(entry, b))),
    fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(defuse(entry, v))),
    rawBodies,
  )
  const auth = fc.constantFrom('valid', 'valid', 'valid', 'valid', 'none', 'Bearer', 'Bearer zz', 'Basic abc', `Bearer ${'a'.repeat(48)}`)
  return fc.record({ path, query, body, auth })
}
