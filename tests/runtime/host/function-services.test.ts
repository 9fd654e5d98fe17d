// A function cannot reach the store, the radio, the change log or the event bus: not through
// its type (the @ts-expect-error lines fail `tsc --noEmit` the day one of them compiles) and
// not at run time (functionServices copies only what a function may call). Its answer is the
// one it names: ctx.ok() refuses a payload with a field too many or too few, and ctx.present
// gives the records of the route's version.
import t from 'tap'
import type { ActiveOrderV2, GatewayFunction, NoFields } from '../../../runtime/host/function-types.ts'
import { functionServices } from '../../../runtime/wiring/services-for-functions.ts'
import { testGateway } from '../../helpers/gateway.ts'

// Compile-time: each of these is an error in a function file.
export const reachesStore: GatewayFunction<NoFields, 'v2'> = async (_request, ctx) => {
  // @ts-expect-error the store is not a function's
  void ctx.services.store
  // @ts-expect-error nor the radio
  void ctx.services.radio
  // @ts-expect-error nor the change log
  void ctx.services.changes
  // @ts-expect-error nor the paging scheduler (it drives the radio)
  void ctx.services.paging
  // @ts-expect-error history is read only
  void ctx.services.history.insert
  // @ts-expect-error a function cannot press the button
  void ctx.services.button.press
  // @ts-expect-error no logger on ctx: a function throws, the router logs
  void ctx.log
  // @ts-expect-error the route's config is the file's own export, not ctx's
  void ctx.config
  // @ts-expect-error the version shows in ctx.ok and ctx.present, not as a field
  void ctx.version
  return ctx.ok()
}

export const answersWhatItNames: GatewayFunction<{ activeorder: ActiveOrderV2 }, 'v2'> = async (_request, ctx) => {
  const activeorder = ctx.present.activeOrder(ctx.services.orders.get({ name: 1 }))
  // @ts-expect-error a field the answer does not name
  void ctx.ok({ activeorder, extra: true })
  // @ts-expect-error a field the answer names, left out
  void ctx.ok({})
  // @ts-expect-error an answer with fields needs its payload
  void ctx.ok()
  // @ts-expect-error a field of the wrong type
  void ctx.ok({ activeorder: { ...activeorder, paged: 'Yes' } })
  return ctx.ok({ activeorder }, { outcome: 'ALREADY_STARTED' })
}

export const presentsItsVersion: GatewayFunction<{ activeorder: ActiveOrderV2 }, 'v1'> = async (_request, ctx) => {
  // @ts-expect-error a v1 route presents v1 orders (stateStarted, paged "Yes"/"No"), not the v2 answer it named
  return ctx.ok({ activeorder: ctx.present.activeOrder(ctx.services.orders.get({ name: 1 })) })
}

t.test('at run time the function services hold no store, radio, change log or event bus', async (t) => {
  const gw = await testGateway()
  const services = functionServices(gw.services) as unknown as Record<string, unknown>
  for (const key of ['store', 'radio', 'changes', 'events', 'paging', 'fleet', 'config']) t.notOk(key in services, key)
  t.notOk('insert' in (services.history as object))
  t.equal((services.clock as { now(): number }).now(), gw.clock.now())
})

t.test('repeaters refresh through the radio without handing it out', async (t) => {
  const gw = await testGateway()
  const services = functionServices(gw.services)
  t.same(await services.repeaters.refresh(), gw.services.repeaters.list())
  t.same(services.repeaters.list(), [])
  t.equal(await services.repeaters.clear(), 0)
  t.equal(services.button.isOpen(), false)
  gw.services.button.press()
  t.equal(services.button.isOpen(), true)
})
