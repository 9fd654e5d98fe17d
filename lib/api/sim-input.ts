// Body fields of the simulator endpoints (extension: simulator).
import { booleanValue, positiveInt } from './input.ts'

export function simTracker(body: Record<string, unknown>): number {
  return positiveInt(body.tracker, 'SIM_INPUT_INVALID')
}

export function simTable(body: Record<string, unknown>): number {
  return positiveInt(body.table, 'SIM_INPUT_INVALID')
}

export function simToGo(body: Record<string, unknown>): boolean {
  return body.toGo === undefined || body.toGo === null ? false : booleanValue(body.toGo, 'SIM_INPUT_INVALID')
}

export const simTrackerSchema = { type: 'integer', minimum: 1, description: 'Tracker number in the simulated restaurant' }
