// Late orders keep reminding until someone deals with them: a beep when an order turns late
// (or is already late when the board opens), then again every `intervalSeconds` while any
// late order is still waiting. Dealt with: cleared (or being cleared) or paged (the guest is
// being called). One beep per tick however many orders are due, so a rush is not a siren.
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
   * @param {Array<{ uuid: string, paged?: boolean }>} lateOrders the orders late now, not being cleared
   * @returns {boolean} whether to beep now
   */
  due(lateOrders, now, intervalSeconds) {
    const waiting = lateOrders.filter((order) => !order.paged)
    const keep = new Set(waiting.map((order) => order.uuid))
    for (const uuid of [...this.#last.keys()]) if (!keep.has(uuid)) this.#last.delete(uuid)
    let beep = false
    for (const order of waiting) {
      const last = this.#last.get(order.uuid)
      if (last === undefined || (intervalSeconds > 0 && now - last >= intervalSeconds * 1000)) {
        this.#last.set(order.uuid, now)
        beep = true
      }
    }
    return beep
  }
}
