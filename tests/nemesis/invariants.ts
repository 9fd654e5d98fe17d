// What a user would say must hold on the box, whatever happened to it: checked by the
// nemesis (tests/nemesis/harness.ts) after every step. Each function takes what the harness
// knows (the model: acknowledged orders and the clock each time was taken on) and what the
// gateway answered (an observation), and returns problems in plain words; none means it held.
// The rules on acknowledged changes themselves (nothing lost, nothing twice, no phantom) and
// on webhook seq are the crash test's (tests/crash/verify.ts), reused as they are.

/**
 * When and on which clock a time was taken, as the harness knows it: `real` is the true time
 * (this process's clock, never faked), `run` the gateway process (counted from 1 per
 * schedule) whose clock took it, `trusted` whether that clock was right and reported
 * synchronised, and `stepsBefore` how many clock steps that run had seen until then.
 */
export interface Stamp {
  real: number
  /** Half the request's duration: the time was taken within `real ± slackMs`. */
  slackMs: number
  run: number
  trusted: boolean
  stepsBefore: number
}

/** An acknowledged active order. */
export interface ModelOrder {
  uuid: string
  name: number
  locationName: string
  /** A tracker is bound (simulator or v1's stand-in address): it can be paged. */
  tracker: boolean
  created: Stamp
}

/** An acknowledged clear. */
export interface ModelCleared {
  uuid: string
  name: number
  locationName: string
  created: Stamp
  cleared: Stamp
}

/** The gateway's answers at one moment (times in ms since the epoch). */
export interface Observation {
  /** True time at the middle of the reads, and how long they took. */
  real: number
  spanMs: number
  /** The gateway's clock (`currentTime`), read first and last, and the true time of the first read. */
  gatewayNow: number
  gatewayNowReal: number
  gatewayNowAfter: number
  /** The world: how far the wall clock is from the true time, and whether it counts as right. */
  offsetMs: number
  trustedNow: boolean
  /** The gateway process now running, and how many steps each run has seen. */
  run: number
  stepsInRun: ReadonlyMap<number, number>
  active: { uuid: string; name: number; locationName: string; created: number; elapsedTime: number }[]
  history: { uuid: string; name: number; started: number; located: number | null; cleared: number }[]
  statistics: { ordersToday: number; averageSeconds: number; exceededToday: number; percentGoal: number; targetTime: number }
  /** The gateway's UTC offset in ms (its `timezone`), for "today". */
  utcOffsetMs: number
}

/** Times the API gives to the second; requests take time; the machine is loaded. */
export const toleranceMs = 3_000

/** Whether a time stayed as it was taken: no step in its run since. */
function unmoved(stamp: Stamp, stepsInRun: ReadonlyMap<number, number>): boolean {
  return (stepsInRun.get(stamp.run) ?? 0) === stamp.stepsBefore
}

const iso = (ms: number) => (Number.isFinite(ms) ? new Date(ms).toISOString() : String(ms))
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`

/**
 * Active orders: never a negative waiting time nor one dated after the gateway's now (for a
 * time its own clock took, or whenever its clock is right); a time the running gateway took
 * keeps the true age however its clock was stepped since; a time taken on a right clock and
 * never stepped stays true once the clock is right again, across restarts.
 */
export function checkActiveTimes(orders: ReadonlyMap<number, ModelOrder>, seen: Observation): string[] {
  const problems: string[] = []
  const slack = toleranceMs + seen.spanMs
  const byUuid = new Map([...orders.values()].map((o) => [o.uuid, o]))
  for (const order of seen.active) {
    const label = `order ${order.name} (${order.uuid})`
    if (!(order.elapsedTime >= 0)) problems.push(`${label}: elapsedTime ${order.elapsedTime} is negative`)
    const model = byUuid.get(order.uuid)
    const thisRun = model?.created.run === seen.run
    if ((thisRun || seen.trustedNow) && order.created > seen.gatewayNowAfter + slack) {
      problems.push(
        `${label}: created ${iso(order.created)} is after the gateway's now ${iso(seen.gatewayNowAfter)} (${thisRun ? 'stamped by this run' : 'the clock is right'})`,
      )
    }
    if (!model) continue
    const age = seen.real - model.created.real
    const ageSlack = slack + model.created.slackMs
    const sure = thisRun || (model.created.trusted && unmoved(model.created, seen.stepsInRun) && seen.trustedNow)
    if (!sure) continue
    const why = thisRun ? 'this run took it' : 'taken on a right clock, never stepped, and the clock is right now'
    if (Math.abs(order.elapsedTime * 1000 - age) > ageSlack + 1000)
      problems.push(`${label}: elapsedTime ${order.elapsedTime} s, but it is ${seconds(age)} old (${why})`)
    // This run's times are on its own clock (which may have started at the high-water mark, not
    // the system's time): as far before its now as the order is old.
    const expected = thisRun ? seen.gatewayNow - (seen.gatewayNowReal - model.created.real) : model.created.real
    if (Math.abs(order.created - expected) > ageSlack + 1000) problems.push(`${label}: created ${iso(order.created)}, expected ${iso(expected)} (${why})`)
  }
  return problems
}

/**
 * History: every row ends after it starts (and is located in between); a row whose both
 * times one run took, or whose both times were taken on a right clock and never stepped,
 * lasts as long as the order truly did.
 */
export function checkHistoryTimes(cleared: ReadonlyMap<string, ModelCleared>, seen: Observation): string[] {
  const problems: string[] = []
  for (const row of seen.history) {
    const label = `history row of ${row.name} (${row.uuid})`
    if (!(row.cleared >= row.started)) problems.push(`${label}: cleared ${iso(row.cleared)} before it started ${iso(row.started)}`)
    if (row.located !== null && !(row.located >= row.started - 1000 && row.located <= row.cleared + 1000)) {
      problems.push(`${label}: located ${iso(row.located)} outside ${iso(row.started)} .. ${iso(row.cleared)}`)
    }
    const model = cleared.get(row.uuid)
    if (!model) continue
    const sameRun = model.created.run === model.cleared.run
    const bothRight = model.created.trusted && model.cleared.trusted && unmoved(model.created, seen.stepsInRun) && unmoved(model.cleared, seen.stepsInRun)
    if (!sameRun && !bothRight) continue
    const truly = model.cleared.real - model.created.real
    const slack = toleranceMs + model.created.slackMs + model.cleared.slackMs + 1000
    if (Math.abs(row.cleared - row.started - truly) > slack) {
      problems.push(
        `${label}: lasted ${seconds(row.cleared - row.started)}, truly ${seconds(truly)} (${sameRun ? 'started and cleared in one run' : 'both taken on a right clock'})`,
      )
    }
    if (bothRight && Math.abs(row.started - model.created.real) > slack)
      problems.push(`${label}: started ${iso(row.started)}, truly ${iso(model.created.real)} (taken on a right clock)`)
  }
  return problems
}

const dayMs = 86_400_000

/**
 * Today's statistics equal what the history says: the rows cleared today (in the gateway's
 * UTC offset), their mean start-to-clear time, how many took longer than the target. Not
 * judged when the gateway's day changed during the reads.
 */
export function checkStatistics(seen: Observation): string[] {
  const dayOf = (ms: number) => Math.floor((ms + seen.utcOffsetMs) / dayMs)
  const stats = seen.statistics
  const problems: string[] = []
  if (stats.averageSeconds < 0) problems.push(`statistics: averageSeconds ${stats.averageSeconds} is negative`)
  if (stats.percentGoal < 0 || stats.percentGoal > 100) problems.push(`statistics: percentGoal ${stats.percentGoal} outside 0..100`)
  if (dayOf(seen.gatewayNow) !== dayOf(seen.gatewayNowAfter)) return problems
  const today = seen.history.filter((row) => dayOf(row.cleared) === dayOf(seen.gatewayNow))
  // Rows within a second of the day's edges may count either way (the API gives seconds).
  const edge = today.filter((row) => (row.cleared + seen.utcOffsetMs) % dayMs < 1000 || (row.cleared + seen.utcOffsetMs) % dayMs > dayMs - 1000).length
  if (Math.abs(stats.ordersToday - today.length) > edge)
    problems.push(`statistics: ordersToday ${stats.ordersToday}, the history has ${today.length} rows cleared today`)
  if (edge > 0 || today.length === 0) return problems
  const durations = today.map((row) => (row.cleared - row.started) / 1000)
  const mean = durations.reduce((a, b) => a + b, 0) / durations.length
  // Each duration is read to the second: the mean may be off by up to one second.
  if (Math.abs(stats.averageSeconds - mean) > 1.05)
    problems.push(`statistics: averageSeconds ${stats.averageSeconds}, the history's rows average ${mean.toFixed(1)} s`)
  const target = stats.targetTime
  const unclear = durations.some((d) => Math.abs(d - target) <= 1)
  const exceeded = durations.filter((d) => d > target).length
  if (!unclear && stats.exceededToday !== exceeded)
    problems.push(`statistics: exceededToday ${stats.exceededToday}, the history has ${exceeded} rows over ${target} s`)
  return problems
}

/** Parses the API's local time (`YYYY-MM-DDTHH:MM:SS`) with the gateway's UTC offset (`±HH:MM`). */
export function parseLocal(text: string, utcOffset: string): number {
  return Date.parse(`${text}${utcOffset}`)
}

/** `±HH:MM` in ms. */
export function offsetMsOf(utcOffset: string): number {
  const match = /^([+-])(\d\d):(\d\d)$/.exec(utcOffset)
  if (!match) throw new Error(`not a UTC offset: ${utcOffset}`)
  return (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3])) * 60_000
}
