// Control-socket commands of the setup button (`gateway button`, `gateway button status`):
// a press opens the window in which a new device may register. Other parts register theirs
// (sim.*, token.*, history.*) next to their own code.
import type { ControlServer } from './control.ts'
import type { Services } from './services.ts'

export function registerButtonCommands(control: ControlServer, services: Services): void {
  control.register('button.press', () => {
    const state = services.button.press()
    services.log.info({ closesAt: state.closesAt }, 'button pressed: token window open')
    return state
  })
  control.register('button.status', () => services.button.state())
}
