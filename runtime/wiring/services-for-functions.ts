// The services a function may call (runtime/host/function-services.ts, FunctionServices),
// taken from the running gateway's: only those, once per router, so nothing else is
// reachable from a function at run time either.
import { RadioUpkeepService } from '../../lib/radio/upkeep.ts'
import type { FunctionServices } from '../host/function-services.ts'
import type { Services } from './services.ts'

export function functionServices(s: Services): FunctionServices {
  const { repeaters, radio, clock, history, button } = s
  return {
    orders: s.orders,
    activeList: s.activeList,
    history: { get: (uuid) => history.get(uuid), statistics: (options) => history.statistics(options), hourly: (options) => history.hourly(options) },
    historyPages: s.historyPages,
    tokens: s.tokens,
    screens: s.screens,
    button: { isOpen: () => button.isOpen() },
    settings: s.settings,
    floor: s.floor,
    screenSettings: s.screenSettings,
    webhooks: s.webhooks,
    identity: s.identity,
    trackers: s.trackers,
    simulator: s.simulator,
    gateway: s.gateway,
    tlsStatus: s.tlsStatus,
    capabilities: s.capabilities,
    cloud: s.cloud,
    check: s.check,
    pairing: s.pairing,
    repeaters: { list: () => repeaters.list(), refresh: () => repeaters.refresh(radio), clear: () => repeaters.clear() },
    clock: { now: () => clock.now() },
    clockWatch: s.clockWatch && { setFromBoard: (time, by) => s.clockWatch!.setFromBoard(time, by), state: () => s.clockWatch!.state() },
    radioUpkeep: new RadioUpkeepService(radio),
    metrics: s.metrics,
  }
}
