// The body of POST /api/v2/gateway/clock: the board's time, as it reads it from its device.
import * as z from '../kernel/schema/index.ts'
import { BodyInput, required } from './input-schema.ts'

const timeField = z.union([z.number().int().min(0).max(8_640_000_000_000_000), z.iso.datetime({ offset: true }).transform((text) => Date.parse(text))])

export const clockBody = new BodyInput({
  time: required(timeField, {
    missing: 'SETTINGS_VALUE_INVALID',
    invalid: 'SETTINGS_VALUE_INVALID',
    message: 'time: milliseconds since the epoch or an ISO 8601 time with Z or an offset',
    description: "The device's current time: milliseconds since the epoch, or ISO 8601 with Z or an offset, as JavaScript's new Date().toISOString() writes it",
  }),
})
