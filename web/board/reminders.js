// Late orders keep reminding until someone deals with them: a beep when an order turns late
// (or is already late when the board opens), then again every `intervalSeconds` while any
// late order is still waiting. Dealt with: cleared (or being cleared) or paged (the guest is
// being called). One beep per tick however many orders are due, so a rush is not a siren.
// A reminder counts only once its tone played: a blocked screen owes it until it can.
// The interval is this screen's choice (a wall screen and a phone want different ones),
// kept in localStorage; 0 reminds once per order.
const storageKey = 'trackerGateway.lateReminder'
export const reminderChoices = [30, 60, 120, 300, 0]
export const defaultReminderSeconds = 60

export function readReminderSeconds(storage = localStorage) {
  const value = Number(storage.getItem(storageKey))
  return storage.getItem(storageKey) !== null && reminderChoices.includes(value) ? value : defaultReminderSeconds
}

export function saveReminderSeconds(seconds, storage = localStorage) {
  if (!reminderChoices.includes(seconds)) throw new Error(`not a reminder choice: ${seconds}`)
  storage.setItem(storageKey, String(seconds))
}

export class LateReminders {
  /** uuid → when it last reminded (ms) */
  #last = new Map()

  /**
   * The late orders due a reminder now: never reminded, or last reminded `intervalSeconds`
   * ago. Nothing is marked until played() says a tone was heard, so a blocked or switched-off
   * sound reminds as soon as it can play.
   * @param {Array<{ uuid: string, paged?: boolean }>} lateOrders the orders late now, not being cleared
   * @returns {string[]} their uuids
   */
  due(lateOrders, now, intervalSeconds) {
    const waiting = lateOrders.filter((order) => !order.paged)
    const keep = new Set(waiting.map((order) => order.uuid))
    for (const uuid of [...this.#last.keys()]) if (!keep.has(uuid)) this.#last.delete(uuid)
    return waiting
      .filter((order) => {
        const last = this.#last.get(order.uuid)
        return last === undefined || (intervalSeconds > 0 && now - last >= intervalSeconds * 1000)
      })
      .map((order) => order.uuid)
  }

  /** A tone was played for these orders at `now`. */
  played(uuids, now) {
    for (const uuid of uuids) this.#last.set(uuid, now)
  }
}
