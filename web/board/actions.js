// What a runner can do with an order card: one primary action for the order's state, the
// rest one tap away behind "⋯". Paged: the guest is being called, so the next step is the
// clear. On a table: the food goes out, then the tracker is cleared at the pass. Not yet on a
// table (or to go): page the guest when the food is ready.
/** Message keys (web/board/messages.js) of each action's label. */
export const actionLabels = { page: 'actionPage', cancel: 'actionCancel', clear: 'actionClear' }

/** @returns {{ primary: 'page' | 'cancel' | 'clear', others: string[] }} */
export function actionsFor(order) {
  if (order.paged) return { primary: 'clear', others: ['cancel'] }
  if (order.state === 'located') return { primary: 'clear', others: ['page'] }
  return { primary: 'page', others: ['clear'] }
}

/** Shape and words next to the colour, for staff who cannot tell red from green (message keys). */
export const levelBadges = {
  green: { key: 'levelGreen' },
  amber: { key: 'levelAmber' },
  red: { key: 'levelRed' },
  critical: { key: 'levelCritical' },
}
