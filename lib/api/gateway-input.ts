// Inputs of the gateway's own endpoints (connection check, repeaters, pairing). Each is one
// schema (lib/api/input-schema.ts): it parses with the endpoint's error kinds and it is what the
// OpenAPI document shows, so the patterns below are exactly what is accepted.
import * as z from '../kernel/schema/index.ts'
import { defaultCheckTimeoutSeconds } from '../gateway/check.ts'
import { deviceCodePattern } from '../gateway/cloud.ts'
import { BodyInput, QueryInput, required, withDefault } from './input-schema.ts'

/** The query value of GET /api/v2/gateway/check: an integer 0-254, up to 10 digits. */
// Written out so the document can carry it: an optional +, leading zeros up to 10 digits in
// all, and -0 (any zeros) which is 0.
const checkTimeoutText = '^(?:\\+?(?:0{0,9}[0-9]|0{0,8}[1-9][0-9]|0{0,7}(?:1[0-9]{2}|2[0-4][0-9]|25[0-4]))|-0{1,10})$'
const integerText = /^[+-]?[0-9]{1,10}$/

export const checkQuery = new QueryInput({
  timeout: withDefault(
    z
      .string()
      .regex(new RegExp(checkTimeoutText))
      .transform((text) => Number(text) + 0),
    defaultCheckTimeoutSeconds,
    {
      // An integer outside 0-254 is -34; anything else (not an integer) -33.
      invalid: (value) => (typeof value === 'string' && integerText.test(value) ? 'CHECK_TIMEOUT_OUT_OF_RANGE' : 'CHECK_TIMEOUT_INVALID'),
      description: 'Seconds to wait for the radio: an integer 0-254 (up to 10 digits, + allowed). Not an integer: -33; outside 0-254: -34.',
    },
  ),
})

export const repeatersQuery = new QueryInput({
  refresh: withDefault(
    z.enum(['true', 'false']).transform((value) => value === 'true'),
    false,
    {
      invalid: 'REFRESH_INVALID',
      description: 'true: ping the repeaters before listing',
    },
  ),
})

export const defaultPairingSeconds = 60

/** 0-254 as a JSON integer or as 1-3 digits. */
const pairingSeconds = z.union([
  z.number().int().min(0).max(254),
  z
    .string()
    .regex(/^(?:0{0,2}[0-9]|0?[1-9][0-9]|1[0-9]{2}|2[0-4][0-9]|25[0-4])$/)
    .transform(Number),
])

/** The body of POST /api/v2/repeaters/beginPairing; a null timeout is refused, not absent. */
export const pairingBody = new BodyInput(
  {
    timeout: withDefault(pairingSeconds, defaultPairingSeconds, {
      invalid: 'PAIRING_TIMEOUT_INVALID',
      description: 'Seconds to listen: 0-254 as a JSON integer or 1-3 digits; 0 stops listening',
    }),
  },
  { nullIsAbsent: false },
)

/** The body of POST /api/v2/gateway/activate: absent, null or "" is -18; any other miss -17. */
export const activateBody = new BodyInput({
  deviceCode: required(z.string().regex(deviceCodePattern), {
    missing: 'DEVICE_CODE_MISSING',
    invalid: (value) => (value === '' ? 'DEVICE_CODE_MISSING' : 'DEVICE_CODE_MALFORMED'),
    description: 'The device code from the cloud service: NNN-NNNN-NNN',
  }),
})
