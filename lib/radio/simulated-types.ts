// The simulated restaurant's shapes (lib/radio/simulated.ts): where each tracker is and what
// it does. Data only.
import type { OrderType } from '../orders/types.ts'

export type SimPosition =
  | { at: 'rack' }
  /** Started on a starter unit and handed to a guest. */
  | { at: 'guest'; orderType: OrderType }
  | { at: 'table'; table: number }

export interface SimTrackerStatus {
  number: number
  address: string
  position: SimPosition
  buzzing: boolean
  /** When the current page lease ends (null when not buzzing). */
  buzzingUntil: number | null
  battery: number
  linkQuality: number
}

export interface SimStatus {
  up: boolean
  trackers: SimTrackerStatus[]
  tables: number[]
  starters: { name: 'dine-in' | 'to-go'; orderType: OrderType }[]
  clearers: string[]
}
