// Each named screen's own settings (extension: /api/v2/board/settings and /api/v2/board/screens),
// kept on the gateway in NeDB by the screen's token name, so they follow the screen to any
// browser signed in with that name and an admin can set them from another board. Only the
// keys a screen (or an admin) set are stored: a key never set is absent, and the board uses
// its own default for it. A change is validated whole before anything is written.
import * as z from '../kernel/schema/index.ts'
import { DomainError } from '../kernel/errors.ts'
import { EventBus, type Listener, type Unsubscribe } from '../kernel/events.ts'
import type { Logger } from '../kernel/log.ts'
import type { Collection } from '../store/db.ts'
import type { ScreenSettings } from './types.ts'
import { areaPattern, maxAreaName } from './floor.ts'

export type { ScreenSettings }

/** The seconds a board offers for the late reminders and the offline alarm (0: once, never). */
const intervalChoices = [30, 60, 120, 300, 0] as const
const interval = z.number().int().min(0).max(300)
/** all, to-go, dine-in, or area:<name> with a name as the floor plan takes it (lib/settings/floor.ts). */
const filterPattern = new RegExp(`^(?:all|to-go|dine-in|area:${areaPattern.source.slice(1, -1)})$`, 'u')

export const screenSettingsSchema = z.strictObject({
  density: z.enum(['auto', 'large', 'medium', 'compact']).optional().describe('Card size: auto fits every order'),
  reminderSeconds: interval.optional().describe('Late orders remind every this many seconds: 30, 60, 120 or 300; 0 once per order'),
  offlineAlarmSeconds: interval.optional().describe('The offline alarm sounds after this many seconds out of reach: 30, 60, 120 or 300; 0 never'),
  sound: z.boolean().optional().describe('Sound on'),
  filter: z
    .string()
    .max('area:'.length + maxAreaName)
    .regex(filterPattern, 'one of all, to-go, dine-in or area:<name>')
    .optional()
    .describe(
      'Which orders the screen shows: all, only to go, only dine-in, or area:<name> only those at tables of that floor-plan area (orders at no table yet are not shown there)',
    ),
  theme: z.enum(['dark', 'light']).optional().describe('Dark, or light for a bright room'),
  hours: z.enum(['24', '12']).optional().describe('Clock times in 24-hour or 12-hour form'),
  language: z.enum(['en', 'es', 'de']).optional().describe("The board's language"),
})

// The schema and the data-only type (lib/settings/types.ts, for the function contract) agree.
type Parsed = z.infer<typeof screenSettingsSchema>
const _agree: [Parsed, ScreenSettings] extends [ScreenSettings, Parsed] ? true : never = true
void _agree
const settingKeys = Object.keys(screenSettingsSchema.shape) as (keyof ScreenSettings)[]

/** Valid settings from untrusted input: -20 naming an unknown key, -21 naming a bad value. */
export function parseScreenSettings(input: unknown): ScreenSettings {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new DomainError('SETTINGS_VALUE_INVALID', 'settings: expected an object')
  for (const key of Object.keys(input)) if (!settingKeys.includes(key as keyof ScreenSettings)) throw new DomainError('SETTINGS_KEY_UNKNOWN', key)
  const result = screenSettingsSchema.safeParse(input)
  if (!result.success) {
    const issue = result.error.issues[0]!
    throw new DomainError('SETTINGS_VALUE_INVALID', `${issue.path.join('.')}: ${issue.message}`.slice(0, 200))
  }
  for (const key of ['reminderSeconds', 'offlineAlarmSeconds'] as const) {
    const value = result.data[key]
    if (value !== undefined && !(intervalChoices as readonly number[]).includes(value))
      throw new DomainError('SETTINGS_VALUE_INVALID', `${key}: one of ${intervalChoices.join(', ')}`)
  }
  return result.data
}

type ScreenDoc = { screen: string; settings: ScreenSettings }

/** `changed`: a screen's settings after a change, kept (the live feed tells that screen at once). */
export type ScreenSettingsEvents = { changed: { name: string; settings: ScreenSettings } }

export class ScreenSettingsService {
  readonly #collection: Collection<ScreenDoc>
  readonly #byName: Map<string, ScreenSettings>
  /** The change being written: the next one merges onto its result, not onto what was there before it. */
  #writes: Promise<unknown> = Promise.resolve()
  readonly #events: EventBus<ScreenSettingsEvents>

  private constructor(collection: Collection<ScreenDoc>, byName: Map<string, ScreenSettings>, log: Logger | undefined) {
    this.#collection = collection
    this.#byName = byName
    this.#events = new EventBus(log)
  }

  static async open(collection: Collection<ScreenDoc>, log?: Logger): Promise<ScreenSettingsService> {
    const byName = new Map<string, ScreenSettings>()
    for (const doc of (await collection.find({})) as ScreenDoc[]) {
      // Keys this version cannot read are dropped, one by one; the rest is kept.
      const kept: Record<string, unknown> = {}
      for (const [key, value] of Object.entries(doc.settings ?? {})) {
        try {
          Object.assign(kept, parseScreenSettings({ [key]: value }))
        } catch {}
      }
      byName.set(doc.screen, kept as ScreenSettings)
    }
    return new ScreenSettingsService(collection, byName, log)
  }

  on<K extends keyof ScreenSettingsEvents>(event: K, listener: Listener<ScreenSettingsEvents[K]>): Unsubscribe {
    return this.#events.on(event, listener)
  }

  /** The settings stored for the screen `name` (none set: an empty object). */
  get(name: string): ScreenSettings {
    return { ...this.#byName.get(name) }
  }

  /** Every screen with stored settings, by name. */
  list(): { name: string; settings: ScreenSettings }[] {
    return [...this.#byName.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, settings]) => ({ name, settings: { ...settings } }))
  }

  /**
   * Merges `input` (validated whole first) into the screen's settings; answers them all.
   * Changes are merged and written one after another: two that overlap (an admin's theme and
   * at once its filter) would otherwise each merge onto the settings before both, and the one
   * written last would put the other's key back. `onlyMissing` sets only the keys not stored
   * when the write runs: a screen signing in sends up its browser's choices this way, so an
   * admin's change made since the screen read its settings is not overwritten.
   */
  async update(name: string, input: unknown, { onlyMissing = false } = {}): Promise<ScreenSettings> {
    const change = parseScreenSettings(input)
    const write = this.#writes.then(async () => {
      const stored = this.#byName.get(name)
      const settings = onlyMissing ? { ...change, ...stored } : { ...stored, ...change }
      await this.#collection.update({ screen: name }, { screen: name, settings }, { upsert: true })
      this.#byName.set(name, settings)
      this.#events.emit('changed', { name, settings: this.get(name) })
      return this.get(name)
    })
    this.#writes = write.catch(() => undefined)
    return write
  }
}
