// `gateway sim ...`: drives the simulated restaurant of a running gateway through the
// control socket. sim.start/sim.place/sim.clear/sim.status are registered on the
// ControlServer; simCliCommand turns the command line into those calls.
import { positiveInt } from '../lib/api/input.ts'
import type { SimActionResult, SimulatorStatus } from '../lib/orders/simulator.ts'
import type { CliCommand } from './cli.ts'
import { sendControl, type ControlServer } from './control.ts'
import type { Services } from './services.ts'

function number(value: unknown, what: string): number {
  try {
    return positiveInt(value, 'SIM_INPUT_INVALID')
  } catch {
    throw new Error(`${what} must be a positive integer, got ${JSON.stringify(value)}`)
  }
}

export function registerSimCommands(control: ControlServer, services: Services): void {
  const { simulator } = services
  control.register('sim.start', (args) => simulator.start(number(args.tracker, 'tracker'), { toGo: args.toGo === true }))
  control.register('sim.place', (args) => simulator.place(number(args.tracker, 'tracker'), number(args.table, 'table')))
  control.register('sim.clear', (args) => simulator.clear(number(args.tracker, 'tracker')))
  control.register('sim.status', () => simulator.status())
}

const simUsage = 'usage: gateway sim start <tracker> [--to-go] | place <tracker> <table> | clear <tracker> | status'

function describeAction(verb: string, result: SimActionResult): string {
  const { tracker, order } = result
  const orderText = order ? `order ${order.name} ${order.state}${order.locationName !== null ? ` at table ${order.locationName}` : ''} (${order.orderType})` : 'no active order'
  return `tracker ${tracker.number} ${verb}: ${orderText}`
}

export function describeStatus(status: SimulatorStatus): string {
  const lines = [`simulated radio ${status.up ? 'up' : 'down'}; tables 1-${status.tables.length}; starters ${status.starters.map((s) => s.name).join(', ')}; clearers ${status.clearers.join(', ')}`]
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
    default:
      throw new Error(simUsage)
  }
}
