// The HTTP host's own answers (lib/api/host-refusals.ts) in an OpenAPI document: any
// operation can receive them, since they come before any route is known. Each is a response
// component; an operation without a response of its status refers to it, one with (its 400
// and 503 of the route's own errors) takes it as a second form of that status's body. Used by
// the gateway's document and HQ's (the same host serves both).
import { hostRefusals, type HostRefusalName } from '../api/host-refusals.ts'

interface ResponseObject {
  $ref?: string
  description?: string
  content?: Record<string, { schema?: unknown }>
}
type Responses = Record<string, ResponseObject>

/** components.schemas.HostRefusal: the body of every host answer. */
export const hostRefusalSchema = {
  type: 'object',
  description: "An answer of the gateway's HTTP host itself, written before any route is known: status and message, no returnCode",
  required: ['status', 'message'],
  properties: { status: { type: 'integer' }, message: { type: 'string' } },
}

const names = Object.keys(hostRefusals) as HostRefusalName[]

function bodyOf(name: HostRefusalName) {
  const { status, message } = hostRefusals[name]
  return { allOf: [{ $ref: '#/components/schemas/HostRefusal' }, { type: 'object', properties: { status: { const: status }, message: { const: message } } }] }
}

/** components.responses: one per host answer. */
export function hostResponseComponents(): Record<string, unknown> {
  return Object.fromEntries(
    names.map((name) => [
      name,
      {
        description: `${hostRefusals[name].when}. Written by the HTTP host before any route is known, so it carries no returnCode.`,
        content: { 'application/json': { schema: bodyOf(name) } },
      },
    ]),
  )
}

/** An operation's responses with the host's answers added (see the header). */
export function withHostRefusals(responses: Responses): Responses {
  const out: Responses = { ...responses }
  for (const name of names) {
    const { status, message, when } = hostRefusals[name]
    const own = out[String(status)]
    const json = own?.content?.['application/json']
    if (!own) out[String(status)] = { $ref: `#/components/responses/${name}` }
    else if (json?.schema) {
      out[String(status)] = {
        ...own,
        description: `${own.description}\n- no returnCode, "${message}": ${when} (the HTTP host's answer, components/responses/${name})`,
        content: { ...own.content, 'application/json': { ...json, schema: { anyOf: [json.schema, bodyOf(name)] } } },
      }
    } else if (own.content) {
      out[String(status)] = { ...own, content: { ...own.content, 'application/json': { schema: bodyOf(name) } } }
    }
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a === 'default' ? 1 : b === 'default' ? -1 : Number(a) - Number(b))))
}

/** Every operation of `paths` with the host's answers. */
export function addHostRefusals(paths: Record<string, Record<string, unknown>>): void {
  for (const item of Object.values(paths)) {
    for (const [method, value] of Object.entries(item)) {
      const operation = value as { responses?: Responses }
      if (['get', 'put', 'post', 'delete', 'patch', 'head', 'options'].includes(method) && operation.responses)
        operation.responses = withHostRefusals(operation.responses)
    }
  }
}
