import t from 'tap'
// @ts-expect-error: a plain browser ES module without types
import { LateReminders, defaultReminderSeconds, readReminderSeconds, saveReminderSeconds } from '../../../web/board/reminders.js'

/** One tick: the uuids due, marked as played when `heard`. */
function tick(reminders: any, late: Array<{ uuid: string; paged?: boolean }>, now: number, interval: number, heard = true): boolean {
  const due = reminders.due(late, now, interval)
  if (due.length && heard) reminders.played(due, now)
  return due.length > 0
}

t.test('a late order reminds at once, then every interval until it is dealt with', async (t) => {
  const reminders = new LateReminders()
  const a = { uuid: 'a' }
  t.equal(tick(reminders, [a], 0, 60), true, 'turned late: beep')
  t.equal(tick(reminders, [a], 30_000, 60), false)
  t.equal(tick(reminders, [a], 60_000, 60), true, 'still late a minute later: again')
  const b = { uuid: 'b' }
  t.same(reminders.due([a, b], 61_000, 60), ['b'], 'a second order turning late is due at once')
  reminders.played(['b'], 61_000)
  t.equal(tick(reminders, [a, b], 62_000, 60), false, 'one beep, not one per order')
  t.same(reminders.due([{ uuid: 'a', paged: true }, b], 121_000, 60), ['b'], 'b is due; a is paged')
  t.equal(tick(reminders, [{ uuid: 'a', paged: true }], 200_000, 60), false, 'paged: dealt with')
  t.equal(tick(reminders, [a], 201_000, 60), true, 'late again after paging stopped: reminds anew')
  const once = new LateReminders()
  t.equal(tick(once, [a], 0, 0), true)
  t.equal(tick(once, [a], 600_000, 0), false, 'interval 0: once per order')
  const blocked = new LateReminders()
  t.equal(tick(blocked, [a], 0, 60, false), true, 'due, but the sound is blocked')
  t.equal(tick(blocked, [a], 1000, 60), true, 'still owed the moment it can play')
  t.equal(tick(blocked, [a], 2000, 60), false)
})

t.test('the interval is this screen’s setting', async (t) => {
  const values = new Map<string, string>()
  const storage = { getItem: (key: string) => values.get(key) ?? null, setItem: (key: string, value: string) => void values.set(key, value) }
  t.equal(readReminderSeconds(storage), defaultReminderSeconds)
  saveReminderSeconds(120, storage)
  t.equal(readReminderSeconds(storage), 120)
  saveReminderSeconds(0, storage)
  t.equal(readReminderSeconds(storage), 0)
  t.throws(() => saveReminderSeconds(7, storage))
  values.set('trackerGateway.lateReminder', 'soon')
  t.equal(readReminderSeconds(storage), defaultReminderSeconds)
})
