import t from 'tap'
// @ts-expect-error: a plain browser ES module without types
import { fleetPill } from '../../../web/board/fleet.js'

t.test('the fleet pill is hidden while the bridge is off', async (t) => {
  t.match(fleetPill({ state: 'disabled', backlog: 0 }), { hidden: true })
  t.match(fleetPill(undefined), { hidden: true })
})

t.test('the fleet pill shows state and backlog', async (t) => {
  t.same(fleetPill({ state: 'connected', backlog: 0 }), { hidden: false, text: 'fleet connected', state: 'live' })
  t.same(fleetPill({ state: 'down', backlog: 12 }), { hidden: false, text: 'fleet down · 12 waiting', state: 'reconnecting' })
  t.match(fleetPill({ state: 'auth-failed', backlog: 3 }), { text: 'fleet auth-failed · 3 waiting' })
  t.match(fleetPill({ state: 'connecting', backlog: 0 }), { state: 'connecting' })
})
