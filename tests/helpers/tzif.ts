// Hand-built TZif files (RFC 8536) for the zone-file reader's tests: the real ones are
// whatever the machine's tzdata holds, these are exactly what a test says.

export interface TzifType {
  utoff: number
  isDst?: boolean
  abbr?: string
}

export interface TzifSpec {
  /** 1: a version 1 file (32-bit block only). 2-4: a placeholder 32-bit block, the 64-bit block and the footer. */
  version: 1 | 2 | 3 | 4
  transitions?: number[]
  transitionTypes?: number[]
  types: TzifType[]
  /** The footer TZ string (versions 2-4). */
  footer?: string
}

function block(spec: { transitions: number[]; transitionTypes: number[]; types: TzifType[] }, version: number, timeSize: 4 | 8): Buffer {
  const abbrs = Buffer.from(spec.types.map((t) => `${t.abbr ?? 'ZZZ'}\0`).join(''), 'latin1')
  let at = 0
  const out = Buffer.alloc(44 + spec.transitions.length * (timeSize + 1) + spec.types.length * 6 + abbrs.length)
  out.write('TZif', 0, 'latin1')
  out[4] = version === 1 ? 0 : 0x30 + version
  const counts = [0, 0, 0, spec.transitions.length, spec.types.length, abbrs.length] // isut, isstd, leap, time, type, char
  for (const [i, count] of counts.entries()) out.writeUInt32BE(count, 20 + 4 * i)
  at = 44
  for (const time of spec.transitions) {
    if (timeSize === 8) out.writeBigInt64BE(BigInt(time), at)
    else out.writeInt32BE(time, at)
    at += timeSize
  }
  for (const type of spec.transitionTypes) out[at++] = type
  let abbrAt = 0
  for (const type of spec.types) {
    out.writeInt32BE(type.utoff, at)
    out[at + 4] = type.isDst ? 1 : 0
    out[at + 5] = abbrAt
    abbrAt += (type.abbr ?? 'ZZZ').length + 1
    at += 6
  }
  abbrs.copy(out, at)
  return out
}

/** A TZif file's bytes. */
export function buildTzif(spec: TzifSpec): Buffer {
  const data = { transitions: spec.transitions ?? [], transitionTypes: spec.transitionTypes ?? [], types: spec.types }
  if (spec.version === 1) return block(data, 1, 4)
  // The 32-bit block says "UTC, always": a reader that used it instead of the 64-bit one shows.
  const placeholder = block({ transitions: [], transitionTypes: [], types: [{ utoff: 0, abbr: 'UTC' }] }, spec.version, 4)
  return Buffer.concat([placeholder, block(data, spec.version, 8), Buffer.from(`\n${spec.footer ?? ''}\n`, 'latin1')])
}
