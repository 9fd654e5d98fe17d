import t from 'tap'
// @ts-expect-error: a plain browser ES module without types
import { actionLabels, actionsFor, levelBadges } from '../../../web/board/actions.js'

t.test('one primary action per state, the rest one tap away', async (t) => {
  t.same(actionsFor({ state: 'started', paged: false }), { primary: 'page', others: ['clear'] })
  t.same(actionsFor({ state: 'located', paged: false }), { primary: 'clear', others: ['page'] })
  t.same(actionsFor({ state: 'started', paged: true }), { primary: 'clear', others: ['cancel'] })
  t.same(actionsFor({ state: 'located', paged: true }), { primary: 'clear', others: ['cancel'] })
  for (const action of ['page', 'cancel', 'clear']) t.type(actionLabels[action], 'string')
  t.same(Object.keys(levelBadges), ['green', 'amber', 'red', 'critical'])
})
