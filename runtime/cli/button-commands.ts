// Control-socket commands of the setup button (`gateway button`, `gateway button status`):
// a press opens the window in which a new device may register. Other parts register theirs
// (sim.*, token.*, history.*) next to their own code.
import type { CliCommand } from './cli-command.ts'
import { sendControl, type ControlServer } from '../control/control.ts'
import type { Services } from '../wiring/services.ts'

export function registerButtonCommands(control: ControlServer, services: Services): void {
  control.register('button.press', () => {
    const state = services.button.press()
    services.log.info({ closesAt: state.closesAt }, 'button pressed: token window open')
    return state
  })
  control.register('button.status', () => services.button.state())
}

/** `gateway button` presses it; `gateway button status` shows the window. */
export const buttonCliCommand: CliCommand = async (positionals, _flags, dataDir) => {
  const command = positionals[0] === 'status' ? 'button.status' : 'button.press'
  const state = (await sendControl(dataDir, command)) as { open: boolean; closesAt: number | null }
  if (!state.open) return 'token window closed'
  const seconds = Math.round(((state.closesAt ?? Date.now()) - Date.now()) / 1000)
  return `token window open for ${seconds} s: call GET /api/v2/accesstoken/generate?name=<name>`
}
