// An unattended wall screen must not go quiet exactly when something is wrong: once the
// gateway has been out of reach for `afterSeconds` (this screen's choice, kept in its
// localStorage; 0 never), an alarm sounds, and again every `repeatSeconds` while it stays
// out of reach. Like the late reminders, an alarm counts only once its tone played.
const storageKey = 'trackerGateway.offlineAlarm'
export const offlineAlarmChoices = [30, 60, 120, 300, 0]
export const defaultOfflineAlarmSeconds = 60
export const offlineAlarmRepeatSeconds = 30

export function readOfflineAlarmSeconds(storage = localStorage) {
  const value = Number(storage.getItem(storageKey))
  return storage.getItem(storageKey) !== null && offlineAlarmChoices.includes(value) ? value : defaultOfflineAlarmSeconds
}

export function saveOfflineAlarmSeconds(seconds, storage = localStorage) {
  if (!offlineAlarmChoices.includes(seconds)) throw new Error(`not an offline alarm choice: ${seconds}`)
  storage.setItem(storageKey, String(seconds))
}

export class OfflineAlarm {
  #since = null
  #last = null

  /** The connection is live (true) or not, as of `now` (ms). */
  connection(live, now) {
    if (live) {
      this.#since = null
      this.#last = null
    } else if (this.#since === null) {
      this.#since = now
    }
  }

  /** Whether the alarm should sound at `now`. */
  due(now, afterSeconds, repeatSeconds = offlineAlarmRepeatSeconds) {
    if (this.#since === null || afterSeconds <= 0) return false
    if (now - this.#since < afterSeconds * 1000) return false
    return this.#last === null || now - this.#last >= repeatSeconds * 1000
  }

  /** Its tone played at `now`. */
  played(now) {
    this.#last = now
  }
}
