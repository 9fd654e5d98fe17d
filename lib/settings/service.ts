// Gateway settings (docs/api.md, "Gateway, radio, settings, repeaters, trackers"): zigbeePreset, targetTimeDefault, timezone. Kept in NeDB,
// read from memory; an update is validated whole before anything is written.
import { DomainError } from '../kernel/errors.ts'
import { EventBus, type Listener, type Subscribable, type Unsubscribe } from '../kernel/events.ts'
import type { Logger } from '../kernel/log.ts'
import type { Collection } from '../store/db.ts'
import { isValidTimezone } from '../kernel/time.ts'
import { systemZoneName } from '../kernel/system-zone.ts'
import type { Settings } from './types.ts'
export type { Settings } from './types.ts'

/**
 * The radio channel a preset letter names. The PAN ID and extended PAN ID of the set are
 * this gateway's own, generated on first start (lib/radio/zigbee-network.ts): fixed values
 * per letter would merge two neighbouring gateways on the same preset into one network.
 * A letter never changes its channel: a stored letter is a running network, and giving it
 * another channel would move that network at the next start, stranding sleeping trackers.
 */
export const zigbeePresets: Record<string, { channel: number }> = {
  A: { channel: 11 },
  B: { channel: 15 },
  C: { channel: 20 },
  D: { channel: 25 },
}

/**
 * The preset of a gateway that never chose one. A new gateway starts on B (channel 15,
 * between Wi-Fi channels 1 and 6; 11 shares the air with Wi-Fi 1, the commonest access
 * point channel). A gateway whose Zigbee network was formed before this default existed
 * formed it on A, and keeps it (docs/api.md ruling, docs/radio.md "Channel").
 */
export const newNetworkPreset = 'B'
export const formedNetworkPreset = 'A'

/** The radio channel of a preset letter (a letter not in the table: the new-network preset's). */
export function channelOfPreset(preset: string): number {
  return (zigbeePresets[preset] ?? zigbeePresets[newNetworkPreset]!).channel
}

export function defaultSettings(zigbeePreset = newNetworkPreset): Settings {
  return { zigbeePreset, targetTimeDefault: 300, timezone: systemTimezone() }
}

/** The host's zone (TZ, else the system's; lib/kernel/system-zone.ts), the default of the timezone setting. */
export function systemTimezone(): string {
  return systemZoneName(isValidTimezone)
}

type SettingsDoc = Settings & { key: 'settings' }

const validators: { [K in keyof Settings]: (value: unknown) => value is Settings[K] } = {
  zigbeePreset: (value): value is string => typeof value === 'string' && Object.hasOwn(zigbeePresets, value),
  targetTimeDefault: (value): value is number => typeof value === 'number' && Number.isInteger(value) && value > 0 && value <= 86_400,
  timezone: (value): value is string => typeof value === 'string' && isValidTimezone(value),
}

/** 'changed': the settings after an update (the radio follows the preset). */
export interface SettingsEvents {
  changed: Settings
}

export class SettingsService implements Subscribable<SettingsEvents> {
  readonly #collection: Collection<SettingsDoc>
  #current: Settings
  readonly #events: EventBus<SettingsEvents>

  private constructor(collection: Collection<SettingsDoc>, current: Settings, log: Logger | undefined) {
    this.#collection = collection
    this.#current = current
    this.#events = new EventBus(log)
  }

  /**
   * `defaultPreset` applies when no preset was ever stored; it is stored at once, so a later
   * change of the default never moves this gateway's network.
   */
  static async open(collection: Collection<SettingsDoc>, options: { defaultPreset?: string; log?: Logger } = {}): Promise<SettingsService> {
    const stored = await collection.findOne({ key: 'settings' })
    const current = { ...defaultSettings(options.defaultPreset) }
    if (stored) {
      for (const key of Object.keys(validators) as (keyof Settings)[]) {
        if (validators[key](stored[key])) (current as Record<string, unknown>)[key] = stored[key]
      }
    }
    if (!validators.zigbeePreset(stored?.zigbeePreset)) {
      await collection.update({ key: 'settings' }, { $set: { zigbeePreset: current.zigbeePreset } }, { upsert: true })
    }
    return new SettingsService(collection, current, options.log)
  }

  get(): Settings {
    return { ...this.#current }
  }

  get timezone(): string {
    return this.#current.timezone
  }

  on<K extends keyof SettingsEvents>(event: K, listener: Listener<SettingsEvents[K]>): Unsubscribe {
    return this.#events.on(event, listener)
  }

  /** All or nothing: any unknown key (-20) or bad value (-21) changes nothing. */
  async update(changes: Record<string, unknown>): Promise<Settings> {
    const next = { ...this.#current }
    for (const [key, value] of Object.entries(changes)) {
      if (!Object.hasOwn(validators, key)) throw new DomainError('SETTINGS_KEY_UNKNOWN', key.slice(0, 64))
      if (!validators[key as keyof Settings](value)) throw new DomainError('SETTINGS_VALUE_INVALID', key)
      ;(next as Record<string, unknown>)[key] = value
    }
    await this.#collection.update({ key: 'settings' }, { key: 'settings', ...next }, { upsert: true })
    this.#current = next
    this.#events.emit('changed', this.get())
    return this.get()
  }
}
