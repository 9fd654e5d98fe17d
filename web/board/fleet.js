// The fleet bridge's state as a header pill: hidden when the bridge is off, otherwise its
// state with the backlog of changes not yet at the broker.

/** @returns {{ hidden: boolean, text: string, state: string }} */
export function fleetPill(fleet) {
  if (!fleet || fleet.state === 'disabled') return { hidden: true, text: '', state: 'disabled' }
  const backlog = Number.isInteger(fleet.backlog) && fleet.backlog > 0 ? ` · ${fleet.backlog} waiting` : ''
  const state = fleet.state === 'connected' ? 'live' : fleet.state === 'connecting' ? 'connecting' : 'reconnecting'
  return { hidden: false, text: `fleet ${fleet.state}${backlog}`, state }
}
