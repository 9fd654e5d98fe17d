// The settings' shapes: the gateway's settings and the floor plan. Data only, so the function
// contract can name them without loading the services that keep them.

export interface Settings {
  zigbeePreset: string
  targetTimeDefault: number
  timezone: string
}

export interface FloorTable {
  table: number
  /** Column, from 0 at the left. */
  x: number
  /** Row, from 0 at the top. */
  y: number
  /** The named area the table belongs to ("Terrace"); absent: none. */
  area?: string
}

export interface FloorPlan {
  columns: number
  rows: number
  tables: FloorTable[]
}

/** One named screen's own settings (lib/settings/screen-settings.ts); a key never set is absent. */
export interface ScreenSettings {
  density?: 'auto' | 'large' | 'medium' | 'compact'
  reminderSeconds?: number
  offlineAlarmSeconds?: number
  sound?: boolean
  /** 'all', 'to-go', 'dine-in', or 'area:<name>': only the orders at tables of that area of the floor plan. */
  filter?: string
  theme?: 'dark' | 'light'
  hours?: '24' | '12'
  language?: 'en' | 'es' | 'de'
}
