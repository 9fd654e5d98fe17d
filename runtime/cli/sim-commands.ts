// `gateway sim ...`: drives the simulated restaurant of a running gateway through the
// control socket. sim.start/sim.place/sim.clear/sim.status/sim.rush/sim.rush.stop are
// registered on the ControlServer; simCliCommand turns the command line into those calls.
import { positiveInt } from '../../lib/api/value-parsers.ts'
import type { RushOptions, RushStatus } from '../../lib/orders/rush.ts'
import type { SimActionResult, SimulatorStatus } from '../../lib/orders/simulator.ts'
import type { CliCommand } from './cli-command.ts'
import { sendControl, type ControlServer } from '../control/control.ts'
import type { Services } from '../wiring/services.ts'

const simUsage = 'usage: gateway sim start <tracker> [--to-go] | place <tracker> <table> | clear <tracker> | status | rush [--minutes N] [--pace X] | rush stop'

function number(value: unknown, what: string): number {
  // A missing argument is a usage mistake, not a malformed number.
  if (value === undefined) throw new Error(`${what} missing; ${simUsage}`)
  try {
    return positiveInt(value, 'SIM_INPUT_INVALID')
  } catch {
    throw new Error(`${what} must be a positive integer, got ${JSON.stringify(value)}`)
  }
}

/** A positive decimal from the command line (--pace 10, --minutes 2.5), or undefined when absent. */
function decimal(value: unknown, what: string): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (typeof value !== 'string' || !/^\d+(\.\d+)?$/.test(value) || !(n > 0))
    throw new Error(`--${what} must be a positive number, got ${JSON.stringify(value)}`)
  return n
}

export function registerSimCommands(control: ControlServer, services: Services): void {
  const { simulator, rush, settings } = services
  control.register('sim.start', (args) => simulator.start(number(args.tracker, 'tracker'), { toGo: args.toGo === true }))
  control.register('sim.place', (args) => simulator.place(number(args.tracker, 'tracker'), number(args.table, 'table')))
  control.register('sim.clear', (args) => simulator.clear(number(args.tracker, 'tracker')))
  control.register('sim.status', () => simulator.status())
  control.register('sim.rush', (args) => {
    const { minutes, pace } = args as RushOptions
    return rush.start({ minutes, pace, targetSeconds: settings.get().targetTimeDefault })
  })
  control.register('sim.rush.stop', () => rush.stop())
}

/** `--pace 10` and `--minutes 5` take values; `--to-go` is a switch. */
export const simCliOptions = {
  minutes: { type: 'string' },
  pace: { type: 'string' },
  'to-go': { type: 'boolean' },
} as const

function describeAction(verb: string, result: SimActionResult): string {
  const { tracker } = result
  const order = result.cleared !== undefined ? result.cleared : result.order
  const orderText = order
    ? `order ${order.name} ${result.cleared ? 'cleared' : order.state}${order.locationName !== null ? ` at table ${order.locationName}` : ''} (${order.orderType})`
    : 'no active order'
  return `tracker ${tracker.number} ${verb}: ${orderText}`
}

export function describeRush(status: RushStatus): string {
  const figures = `${status.guests} guests, ${status.late} late, ${status.pages} pages`
  if (status.state === 'stopped') return `lunch rush stopped (${figures})`
  const ends = status.arrivalsEndAt === null ? '' : `; guests arrive until ${new Date(status.arrivalsEndAt).toLocaleTimeString()}`
  return `lunch rush ${status.state} at pace ${status.pace}${ends} (${figures}); stop it with: gateway sim rush stop`
}

export function describeStatus(status: SimulatorStatus): string {
  const lines = [
    `simulated radio ${status.up ? 'up' : 'down'}; tables 1-${status.tables.length}; starters ${status.starters.map((s) => s.name).join(', ')}; clearers ${status.clearers.join(', ')}`,
  ]
  for (const t of status.trackers) {
    const where = t.position.at === 'table' ? `table ${t.position.table}` : t.position.at === 'guest' ? `with guest (${t.position.orderType})` : 'rack'
    const order = t.order ? `order ${t.order.name} ${t.order.state}` : '-'
    lines.push(`  #${String(t.number).padStart(3)} ${t.address}  ${where.padEnd(22)} ${order.padEnd(22)} ${t.buzzing ? 'BUZZING' : ''}`.trimEnd())
  }
  return lines.join('\n')
}

export const simCliCommand: CliCommand = async (positionals, flags, dataDir) => {
  const [action, first, second] = positionals
  switch (action) {
    case 'start': {
      const tracker = number(first, 'tracker')
      const result = (await sendControl(dataDir, 'sim.start', { tracker, toGo: flags['to-go'] === true })) as SimActionResult
      return describeAction(`started on the ${flags['to-go'] === true ? 'to-go' : 'dine-in'} starter`, result)
    }
    case 'place': {
      const result = (await sendControl(dataDir, 'sim.place', { tracker: number(first, 'tracker'), table: number(second, 'table') })) as SimActionResult
      return describeAction(`placed on table ${second}`, result)
    }
    case 'clear': {
      const result = (await sendControl(dataDir, 'sim.clear', { tracker: number(first, 'tracker') })) as SimActionResult
      return describeAction('cleared', result)
    }
    case 'status':
      return describeStatus((await sendControl(dataDir, 'sim.status')) as SimulatorStatus)
    case 'rush': {
      if (first === 'stop') return describeRush((await sendControl(dataDir, 'sim.rush.stop')) as RushStatus)
      if (first !== undefined) throw new Error(simUsage)
      const options = { minutes: decimal(flags.minutes, 'minutes'), pace: decimal(flags.pace, 'pace') }
      return describeRush((await sendControl(dataDir, 'sim.rush', options)) as RushStatus)
    }
    default:
      throw new Error(simUsage)
  }
}

/**
 * `gateway start --demo`: one lunch service after another (30 minutes at pace 1, with a
 * peak of about 30 orders out at once, several late), so the board always has something to show. Answers the first service's description.
 */
export async function startDemo(services: Services, checkEveryMs = 60_000): Promise<string> {
  if (!services.simulator.available) throw new Error('--demo needs the simulated radio (radio.kind "simulated")')
  const play = () => services.rush.start({ minutes: 30, peak: true, targetSeconds: services.settings.get().targetTimeDefault })
  const first = describeRush(await play())
  const replay = (): void => {
    services.clock.setTimeout(() => {
      if (services.rush.status().state === 'stopped') void play().catch(() => undefined)
      replay()
    }, checkEveryMs)
  }
  replay()
  return first
}
