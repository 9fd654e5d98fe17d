// Strict parsers for path, query and body values. Each throws the DomainError its caller
// names, so the same parser serves every endpoint with that endpoint's code.
import { DomainError, type ErrorKind } from '../kernel/errors.ts'
import type { OrderRef } from '../orders/types.ts'
import { orderNameText, orderRefText, positiveInt as positiveIntSchema, uuidText } from './fields.ts'

const maxDepth = 32
const digitsPattern = /^[0-9]+$/

/** A positive integer given as a JSON number or a digit string; 0 and over 2^31-1 refused. */
export function positiveInt(value: unknown, kind: ErrorKind): number {
  const parsed = positiveIntSchema.safeParse(value)
  if (!parsed.success) throw new DomainError(kind)
  return parsed.data
}

/** A non-negative integer written only with digits (query values). */
export function nonNegativeIntText(value: string, kind: ErrorKind): number {
  if (!digitsPattern.test(value) || value.length > 10) throw new DomainError(kind)
  return Number(value)
}

export function uuid(value: string | undefined, kind: ErrorKind = 'UUID_INVALID'): string {
  const parsed = uuidText.safeParse(value)
  if (!parsed.success) throw new DomainError(kind)
  return parsed.data
}

export type { OrderRef }

/**
 * An active-order reference in a path: a positive integer (name) or a UUID (lib/api/fields.ts).
 * Where only a number is taken (v1 clear and page), the refusal says that: ORDER_NAME_INVALID.
 */
export function orderRef(value: string | undefined, options: { allowUuid?: boolean } = {}): OrderRef {
  const allowUuid = options.allowUuid ?? true
  const parsed = (allowUuid ? orderRefText : orderNameText).safeParse(value)
  if (!parsed.success) throw new DomainError(allowUuid ? 'ORDER_REF_INVALID' : 'ORDER_NAME_INVALID')
  return parsed.data
}

function checkShape(value: unknown, depth: number): void {
  if (depth > maxDepth) throw new DomainError('JSON_INVALID', `nesting deeper than ${maxDepth}`)
  if (value === null || typeof value !== 'object') return
  if (Array.isArray(value)) {
    for (const item of value) checkShape(item, depth + 1)
    return
  }
  for (const key of Object.keys(value)) {
    // Operator and prototype keys never reach a datastore query or an object merge.
    if (key.startsWith('$') || key === '__proto__' || key === 'constructor' || key === 'prototype') {
      throw new DomainError('JSON_INVALID', `key "${key.slice(0, 32)}" is not allowed`)
    }
    checkShape((value as Record<string, unknown>)[key], depth + 1)
  }
}

/**
 * Parses a JSON body (an object, or empty meaning {}). Malformed JSON, a non-object, too
 * deep a nesting or an operator/prototype key is JSON_INVALID.
 */
export function parseJsonObject(text: string): Record<string, unknown> {
  if (text.trim() === '') return {}
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new DomainError('JSON_INVALID')
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new DomainError('JSON_INVALID', 'expected a JSON object')
  }
  checkShape(value, 1)
  return value as Record<string, unknown>
}
