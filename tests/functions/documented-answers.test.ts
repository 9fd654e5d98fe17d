// Each function names its answer (runtime/host/function-types.ts: GatewayFunction<Answer, V>,
// and ctx.ok() takes exactly that). Where the OpenAPI document describes a route's payload
// (lib/openapi/schemas.ts, `payloads`), the named answer must be the documented one: the
// types openapi-typescript generates from the served document (clients/typescript/src/
// schema.d.ts, kept in step by tests/clients/typescript/generated-types.test.ts) are compared
// with each function's Answer below by `tsc --noEmit`: the answer must fit the documented
// payload and name no field it lacks (a line fails to compile otherwise). At run time the test checks that every documented payload has its line.
// Kept lists (RawJson: presented once, spliced in as text) are opaque to the types; their
// items are checked by the presenters' return types (lib/api/present-order.ts).
import t from 'tap'
import type { operations } from '../../clients/typescript/src/schema.d.ts'
import { manifest } from '../../functions/_manifest.gen.ts'
import { operationId } from '../../lib/openapi/document.ts'
import { payloads } from '../../lib/openapi/schemas.ts'
import type { GatewayFunction, RawJson } from '../../runtime/host/function-types.ts'
import type v1ActiveordersGet from '../../functions/v1/activeorders.get.ts'
import type v1ActiveordersIdGet from '../../functions/v1/activeorders.id.get.ts'
import type v1ActiveordersNameDelete from '../../functions/v1/activeorders.name.delete.ts'
import type v1ActiveordersNamePagePost from '../../functions/v1/activeorders.name.page.post.ts'
import type v1ActiveordersPost from '../../functions/v1/activeorders.post.ts'
import type v1IndexGet from '../../functions/v1/index.get.ts'
import type v1OrdersGet from '../../functions/v1/orders.get.ts'
import type v1OrdersUuidGet from '../../functions/v1/orders.uuid.get.ts'
import type v1StatisticsGet from '../../functions/v1/statistics.get.ts'
import type v2AccesstokenGenerateGet from '../../functions/v2/accesstoken.generate.get.ts'
import type v2AccesstokenGeneratePost from '../../functions/v2/accesstoken.generate.post.ts'
import type v2ActiveordersDelete from '../../functions/v2/activeorders.delete.ts'
import type v2ActiveordersGet from '../../functions/v2/activeorders.get.ts'
import type v2ActiveordersIdDelete from '../../functions/v2/activeorders.id.delete.ts'
import type v2ActiveordersIdGet from '../../functions/v2/activeorders.id.get.ts'
import type v2ActiveordersIdPageGet from '../../functions/v2/activeorders.id.page.get.ts'
import type v2ActiveordersIdPagePost from '../../functions/v2/activeorders.id.page.post.ts'
import type v2ActiveordersPost from '../../functions/v2/activeorders.post.ts'
import type v2GatewayTlsGet from '../../functions/v2/gateway.tls.get.ts'
import type v2IndexGet from '../../functions/v2/index.get.ts'
import type v2OrdersGet from '../../functions/v2/orders.get.ts'
import type v2OrdersUuidGet from '../../functions/v2/orders.uuid.get.ts'
import type v2RegisterPost from '../../functions/v2/register.post.ts'
import type v2StatisticsGet from '../../functions/v2/statistics.get.ts'

/** The Answer a function file's handler names. */
type AnswerOf<F> = F extends GatewayFunction<infer Answer, infer _Version> ? Answer : never
/** A field holding a kept list (RawJson) is compared as unknown, on both sides. */
type Opaque<A, Kept extends PropertyKey> = { [K in keyof A]: K extends Kept ? unknown : A[K] }
type KeptFields<A> = { [K in keyof A]: A[K] extends RawJson ? K : never }[keyof A]
/** The payload the document gives a route's success answer: its fields beside the envelope's. */
type Documented<Op extends keyof operations> = operations[Op]['responses'] extends infer R
  ? R extends Record<200, { content: { 'application/json': infer Body } }>
    ? Omit<Body, 'status' | 'returnCode' | 'message'>
    : R extends Record<201, { content: { 'application/json': infer Body } }>
      ? Omit<Body, 'status' | 'returnCode' | 'message'>
      : never
  : never
/**
 * true when what the function answers fits the document (its Answer is assignable to the
 * documented payload: every documented field, of a documented type, a literal where the
 * document says string is fine) and names no top-level field the document does not.
 */
type Matches<F, Op extends keyof operations> = [Opaque<AnswerOf<F>, KeptFields<AnswerOf<F>>>] extends [Opaque<Documented<Op>, KeptFields<AnswerOf<F>>>]
  ? [Exclude<keyof AnswerOf<F>, keyof Documented<Op>>] extends [never]
    ? true
    : false
  : false

/** Every line must compile: `true` only where the function answers what the document says. */
export const checked = {
  v1_index_get: true satisfies Matches<typeof v1IndexGet, 'v1_index_get'>,
  v1_activeorders_get: true satisfies Matches<typeof v1ActiveordersGet, 'v1_activeorders_get'>,
  v1_activeorders_post: true satisfies Matches<typeof v1ActiveordersPost, 'v1_activeorders_post'>,
  v1_activeorders_id_get: true satisfies Matches<typeof v1ActiveordersIdGet, 'v1_activeorders_id_get'>,
  v1_activeorders_name_delete: true satisfies Matches<typeof v1ActiveordersNameDelete, 'v1_activeorders_name_delete'>,
  v1_activeorders_name_page_post: true satisfies Matches<typeof v1ActiveordersNamePagePost, 'v1_activeorders_name_page_post'>,
  v1_orders_get: true satisfies Matches<typeof v1OrdersGet, 'v1_orders_get'>,
  v1_orders_uuid_get: true satisfies Matches<typeof v1OrdersUuidGet, 'v1_orders_uuid_get'>,
  v1_statistics_get: true satisfies Matches<typeof v1StatisticsGet, 'v1_statistics_get'>,
  v2_index_get: true satisfies Matches<typeof v2IndexGet, 'v2_index_get'>,
  v2_accesstoken_generate_get: true satisfies Matches<typeof v2AccesstokenGenerateGet, 'v2_accesstoken_generate_get'>,
  v2_accesstoken_generate_post: true satisfies Matches<typeof v2AccesstokenGeneratePost, 'v2_accesstoken_generate_post'>,
  v2_activeorders_get: true satisfies Matches<typeof v2ActiveordersGet, 'v2_activeorders_get'>,
  v2_activeorders_post: true satisfies Matches<typeof v2ActiveordersPost, 'v2_activeorders_post'>,
  v2_activeorders_delete: true satisfies Matches<typeof v2ActiveordersDelete, 'v2_activeorders_delete'>,
  v2_activeorders_id_get: true satisfies Matches<typeof v2ActiveordersIdGet, 'v2_activeorders_id_get'>,
  v2_activeorders_id_delete: true satisfies Matches<typeof v2ActiveordersIdDelete, 'v2_activeorders_id_delete'>,
  v2_activeorders_id_page_get: true satisfies Matches<typeof v2ActiveordersIdPageGet, 'v2_activeorders_id_page_get'>,
  v2_activeorders_id_page_post: true satisfies Matches<typeof v2ActiveordersIdPagePost, 'v2_activeorders_id_page_post'>,
  v2_gateway_tls_get: true satisfies Matches<typeof v2GatewayTlsGet, 'v2_gateway_tls_get'>,
  v2_orders_get: true satisfies Matches<typeof v2OrdersGet, 'v2_orders_get'>,
  v2_orders_uuid_get: true satisfies Matches<typeof v2OrdersUuidGet, 'v2_orders_uuid_get'>,
  v2_register_post: true satisfies Matches<typeof v2RegisterPost, 'v2_register_post'>,
  v2_statistics_get: true satisfies Matches<typeof v2StatisticsGet, 'v2_statistics_get'>,
}

t.test('every route whose payload the document describes has its answer checked above', async (t) => {
  const documented = manifest.filter((entry) => payloads[`${entry.method} ${entry.path}`]).map((entry) => operationId(entry.file))
  t.ok(documented.length >= 20, `${documented.length} documented payloads`)
  t.same(documented.filter((id) => !(id in checked)).sort(), [], 'documented payloads without a check')
  t.same(
    Object.keys(checked)
      .filter((id) => !documented.includes(id))
      .sort(),
    [],
    'checks of routes the document gives no payload',
  )
})
