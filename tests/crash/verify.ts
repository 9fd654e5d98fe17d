// The crash test's judgements, kept apart from the process juggling so each rule has its own
// unit test (tests/crash/verify.test.ts). Every function returns a list of problems in plain
// words; an empty list means the rule held.

/** One webhook POST as the receiver got it. */
export interface Delivery {
  /** The path it was sent to (one per registration). */
  path: string
  id: string
  seq: number
  /** The raw body, compared byte for byte between redeliveries. */
  body: string
  uuid: string
  changeType: string
  state: string
  locationName: string
}

/** A change the gateway acknowledged (2xx) and must therefore announce. */
export interface ExpectedChange {
  uuid: string
  changeType: 'ORDER_CREATED' | 'ORDER_MODIFIED' | 'ORDER_PAGED' | 'ORDER_CLEARED'
  /** When given, the delivered payload must show this location ('' for none). */
  locationName?: string
  /** When given, the delivered payload must show this state. */
  state?: string
  /** What the harness did, for the problem text. */
  op: string
}

export interface DeliveryReport {
  problems: string[]
  /** Redeliveries of a webhook already received (at-least-once), by webhook-id. */
  duplicates: number
}

/**
 * seq is never reused: per path the receiver sees strictly increasing seq, except a repeat of
 * a webhook it already got (same webhook-id, same body); and across all paths one seq always
 * means one change (one id, one body).
 */
export function checkDeliveries(deliveries: readonly Delivery[]): DeliveryReport {
  const problems: string[] = []
  let duplicates = 0
  const bySeq = new Map<number, { id: string; body: string }>()
  const perPath = new Map<string, { max: number; seen: Map<number, string> }>()
  for (const d of deliveries) {
    const known = bySeq.get(d.seq)
    if (!known) bySeq.set(d.seq, { id: d.id, body: d.body })
    else if (known.id !== d.id || known.body !== d.body)
      problems.push(`seq ${d.seq} was used for two different changes (${known.id} and ${d.id}, bodies differ: ${known.body !== d.body})`)
    let state = perPath.get(d.path)
    if (!state) perPath.set(d.path, (state = { max: 0, seen: new Map() }))
    if (d.seq > state.max) {
      state.max = d.seq
      state.seen.set(d.seq, d.body)
      continue
    }
    const earlier = state.seen.get(d.seq)
    if (earlier === undefined) problems.push(`${d.path}: seq ${d.seq} arrived after seq ${state.max} (not increasing, and not a redelivery)`)
    else if (earlier !== d.body) problems.push(`${d.path}: seq ${d.seq} redelivered with a different body`)
    else duplicates++
  }
  return { problems, duplicates }
}

function matches(expected: ExpectedChange, d: Delivery): boolean {
  if (d.uuid !== expected.uuid || d.changeType !== expected.changeType) return false
  if (expected.locationName !== undefined && d.locationName !== expected.locationName) return false
  if (expected.state !== undefined && d.state !== expected.state) return false
  return true
}

/**
 * Every acknowledged change arrived, and for each order in the order it was made: per uuid
 * the acknowledged changes are a subsequence of the delivered ones (sorted by seq, repeats
 * removed). Unacknowledged changes (cut off by the kill) and background ones may be mixed in.
 */
export function checkExpectedArrived(expected: readonly ExpectedChange[], deliveries: readonly Delivery[]): string[] {
  const problems: string[] = []
  const delivered = new Map<string, Delivery[]>()
  const bySeq = new Map<number, Delivery>()
  for (const d of deliveries) if (!bySeq.has(d.seq)) bySeq.set(d.seq, d)
  for (const d of [...bySeq.values()].sort((a, b) => a.seq - b.seq)) {
    let list = delivered.get(d.uuid)
    if (!list) delivered.set(d.uuid, (list = []))
    list.push(d)
  }
  const cursor = new Map<string, number>()
  for (const change of expected) {
    const list = delivered.get(change.uuid) ?? []
    let at = cursor.get(change.uuid) ?? 0
    while (at < list.length && !matches(change, list[at]!)) at++
    if (at >= list.length) {
      problems.push(`acknowledged ${change.op} (${change.changeType} of ${change.uuid}) never reached the receiver, or arrived out of order`)
      continue
    }
    cursor.set(change.uuid, at + 1)
  }
  return problems
}

/** An order as the API shows it (active list or history). */
export interface OrderView {
  uuid: string
  name: number
  locationName: string
}

/** What the harness holds as acknowledged about one active order. */
export interface AckedOrder {
  uuid: string
  locationName: string
}

/** A request that was in flight when the gateway died: it may or may not have happened. */
export type PendingOp =
  | { kind: 'create'; name: number }
  | { kind: 'locate'; name: number; locationName: string }
  | { kind: 'clear'; name: number }
  | { kind: 'other'; name: number }

export interface ModelState {
  /** Acknowledged active orders by name. */
  active: ReadonlyMap<number, AckedOrder>
  /** Acknowledged clears: uuid → the location the order had when it was cleared. */
  cleared: ReadonlyMap<string, { name: number; locationName: string }>
  /** Every uuid whose creation was acknowledged (or seen after a restart). */
  created: ReadonlySet<string>
  /** The names the harness drives (other active orders are phantoms). */
  names: ReadonlySet<number>
}

/**
 * After a restart: acknowledged orders survived as acknowledged, cleared ones are in history
 * exactly once and not active, history and active are disjoint, and nothing appeared that no
 * request (acknowledged or in flight) could have made.
 */
export function checkRecoveredState(model: ModelState, pending: readonly PendingOp[], active: readonly OrderView[], history: readonly OrderView[]): string[] {
  const problems: string[] = []
  const pendingByName = new Map(pending.map((p) => [p.name, p]))
  const activeByUuid = new Map(active.map((o) => [o.uuid, o]))
  const historyCount = new Map<string, number>()
  const historyByUuid = new Map<string, OrderView>()
  for (const o of history) {
    historyCount.set(o.uuid, (historyCount.get(o.uuid) ?? 0) + 1)
    historyByUuid.set(o.uuid, o)
  }
  for (const [uuid, n] of historyCount) if (n > 1) problems.push(`order ${uuid} is in history ${n} times`)
  for (const o of active) if (historyByUuid.has(o.uuid)) problems.push(`order ${o.uuid} (${o.name}) is both active and in history`)
  const names = new Map<number, number>()
  for (const o of active) names.set(o.name, (names.get(o.name) ?? 0) + 1)
  for (const [name, n] of names) if (n > 1) problems.push(`${n} active orders named ${name}`)

  for (const [uuid, cleared] of model.cleared) {
    const summary = historyByUuid.get(uuid)
    if (!summary) problems.push(`acknowledged clear of ${cleared.name} (${uuid}) is not in history`)
    else if (summary.locationName !== cleared.locationName)
      problems.push(`history of ${uuid} has location "${summary.locationName}", acknowledged "${cleared.locationName}"`)
    if (activeByUuid.has(uuid)) problems.push(`acknowledged clear of ${cleared.name} (${uuid}) is active again`)
  }
  for (const [name, acked] of model.active) {
    const p = pendingByName.get(name)
    const now = activeByUuid.get(acked.uuid)
    if (!now) {
      if (!(p?.kind === 'clear' && historyByUuid.has(acked.uuid)))
        problems.push(`acknowledged order ${name} (${acked.uuid}) is gone${historyByUuid.has(acked.uuid) ? ' (cleared with no clear in flight)' : ''}`)
      continue
    }
    const allowed = [acked.locationName, ...(p?.kind === 'locate' ? [p.locationName] : [])]
    if (!allowed.includes(now.locationName)) problems.push(`order ${name} has location "${now.locationName}", acknowledged "${acked.locationName}"`)
  }
  const known = new Set([...model.active.values()].map((o) => o.uuid))
  for (const o of active) {
    if (known.has(o.uuid) || !model.names.has(o.name)) continue
    if (pendingByName.get(o.name)?.kind !== 'create' || model.active.has(o.name))
      problems.push(`order ${o.name} (${o.uuid}) is active but was never acknowledged nor in flight`)
  }
  for (const uuid of model.created) {
    if (!activeByUuid.has(uuid) && !historyByUuid.has(uuid)) problems.push(`acknowledged order ${uuid} is neither active nor in history`)
  }
  return problems
}

/** Registrations: acknowledged ones are listed, acknowledged removals are not (bar one in flight). */
export function checkRegistrations(acked: ReadonlyMap<string, boolean>, pending: ReadonlySet<string>, listed: readonly string[]): string[] {
  const problems: string[] = []
  const present = new Set(listed)
  for (const [url, registered] of acked) {
    if (pending.has(url)) continue
    if (registered && !present.has(url)) problems.push(`acknowledged registration of ${url} is not listed`)
    if (!registered && present.has(url)) problems.push(`acknowledged removal of ${url} is undone: still listed`)
  }
  return problems
}

/** A small seeded PRNG (mulberry32): the same seed gives the same load and kill moments. */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let x = a
    x = Math.imul(x ^ (x >>> 15), x | 1)
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61)
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * The in-flight requests that visibly took effect (the order appeared, moved to history, or
 * shows the new location): the changes they made, whose webhooks should follow too if a
 * mutation is all-or-nothing (state and its event together).
 */
export function appliedInFlight(
  model: ModelState,
  pending: readonly PendingOp[],
  active: readonly OrderView[],
  history: readonly OrderView[],
): ExpectedChange[] {
  const changes: ExpectedChange[] = []
  const activeByName = new Map(active.map((o) => [o.name, o]))
  const inHistory = new Map(history.map((o) => [o.uuid, o]))
  for (const p of pending) {
    const acked = model.active.get(p.name)
    const now = activeByName.get(p.name)
    if (p.kind === 'create' && !acked && now) changes.push({ uuid: now.uuid, changeType: 'ORDER_CREATED', op: `create ${p.name} (in flight)` })
    if (p.kind === 'clear' && acked && inHistory.has(acked.uuid))
      changes.push({ uuid: acked.uuid, changeType: 'ORDER_CLEARED', op: `clear ${p.name} (in flight)` })
    if (p.kind === 'locate' && acked && now?.uuid === acked.uuid && now.locationName === p.locationName && p.locationName !== acked.locationName) {
      changes.push({ uuid: acked.uuid, changeType: 'ORDER_MODIFIED', locationName: p.locationName, op: `locate ${p.name} (in flight)` })
    }
  }
  return changes
}
