// Reads a compiled time-zone file (TZif, RFC 8536 and its successor RFC 9636, versions 1 to 4)
// into the little the gateway needs: when the UTC offset changes, to what, and the footer
// rule for the instants after the last stored change. The system's zone files are the
// gateway's source of local time (lib/kernel/zone-rules.ts), so that formatting a timestamp
// never loads ICU's time-zone data (docs/architecture.md, "Local time").

export interface LocalTimeType {
  /** Seconds east of UTC. */
  utoff: number
  isDst: boolean
}

export interface TzifData {
  version: 1 | 2 | 3 | 4
  /** Transition instants, seconds since 1970 UTC, ascending. */
  transitions: number[]
  /** The local time type in force from each transition on (index into `types`). */
  transitionTypes: number[]
  types: LocalTimeType[]
  /** The POSIX TZ string for instants after the last transition ('' when none; always '' in version 1). */
  footer: string
}

export class TzifError extends Error {
  override name = 'TzifError'
}

const headerLength = 44
/** RFC 8536 3.2: offsets outside this range are not sensible local times. */
const utoffLimit = { min: -89_999, max: 93_599 }

interface Header {
  version: 1 | 2 | 3 | 4
  isutcnt: number
  isstdcnt: number
  leapcnt: number
  timecnt: number
  typecnt: number
  charcnt: number
}

function readHeader(view: DataView, at: number): Header {
  if (view.byteLength < at + headerLength) throw new TzifError('truncated header')
  if (view.getUint32(at) !== 0x545a6966) throw new TzifError('not a TZif file (bad magic)') // "TZif"
  const versionByte = view.getUint8(at + 4)
  const version = versionByte === 0 ? 1 : versionByte - 0x30
  if (version !== 1 && version !== 2 && version !== 3 && version !== 4) {
    throw new TzifError(`unsupported TZif version byte 0x${versionByte.toString(16)}`)
  }
  const count = (n: number) => view.getUint32(at + 20 + 4 * n)
  const header = {
    version,
    isutcnt: count(0),
    isstdcnt: count(1),
    leapcnt: count(2),
    timecnt: count(3),
    typecnt: count(4),
    charcnt: count(5),
  } satisfies Header
  if (header.typecnt === 0) throw new TzifError('no local time types')
  if (header.typecnt > 256) throw new TzifError('more than 256 local time types')
  // Files with leap-second records count time on another scale than Date does (the
  // "right/" zones); they are refused rather than read a few seconds off.
  if (header.leapcnt !== 0) throw new TzifError('leap-second records are not supported')
  if (header.isutcnt !== 0 && header.isutcnt !== header.typecnt) throw new TzifError('UT indicator count mismatch')
  if (header.isstdcnt !== 0 && header.isstdcnt !== header.typecnt) throw new TzifError('standard indicator count mismatch')
  return header
}

/** Bytes of the data block after a header whose transition times are `timeSize` bytes wide. */
function dataBlockLength(h: Header, timeSize: 4 | 8): number {
  return h.timecnt * timeSize + h.timecnt + h.typecnt * 6 + h.charcnt + h.leapcnt * (timeSize + 4) + h.isstdcnt + h.isutcnt
}

function readBlock(view: DataView, at: number, h: Header, timeSize: 4 | 8): Omit<TzifData, 'version' | 'footer'> {
  if (view.byteLength < at + dataBlockLength(h, timeSize)) throw new TzifError('truncated data block')
  const transitions: number[] = []
  for (let i = 0; i < h.timecnt; i++) {
    const time = timeSize === 8 ? Number(view.getBigInt64(at + 8 * i)) : view.getInt32(at + 4 * i)
    if (i > 0 && time <= transitions[i - 1]!) throw new TzifError('transition times not ascending')
    transitions.push(time)
  }
  let offset = at + h.timecnt * timeSize
  const transitionTypes: number[] = []
  for (let i = 0; i < h.timecnt; i++) {
    const type = view.getUint8(offset + i)
    if (type >= h.typecnt) throw new TzifError('transition names a missing local time type')
    transitionTypes.push(type)
  }
  offset += h.timecnt
  const types: LocalTimeType[] = []
  for (let i = 0; i < h.typecnt; i++) {
    const utoff = view.getInt32(offset + 6 * i)
    if (utoff < utoffLimit.min || utoff > utoffLimit.max) throw new TzifError(`implausible UTC offset ${utoff} s`)
    const isdst = view.getUint8(offset + 6 * i + 4)
    if (isdst > 1) throw new TzifError('bad DST indicator')
    if (view.getUint8(offset + 6 * i + 5) >= h.charcnt) throw new TzifError('designation index out of range')
    types.push({ utoff, isDst: isdst === 1 })
  }
  return { transitions, transitionTypes, types }
}

/**
 * Parses a TZif file. Version 2 and later files are read from their 64-bit block and footer
 * (the 32-bit block before them is only skipped: it cannot represent instants before 1901
 * or after 2038). Throws TzifError for anything malformed, so a caller can fall back.
 */
export function parseTzif(bytes: Uint8Array): TzifData {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const first = readHeader(view, 0)
  if (first.version === 1) {
    return { version: 1, ...readBlock(view, headerLength, first, 4), footer: '' }
  }
  const secondAt = headerLength + dataBlockLength(first, 4)
  const second = readHeader(view, secondAt)
  if (second.version !== first.version) throw new TzifError('the two headers disagree on the version')
  const blockAt = secondAt + headerLength
  const block = readBlock(view, blockAt, second, 8)
  const footerAt = blockAt + dataBlockLength(second, 8)
  if (view.byteLength <= footerAt || bytes[footerAt] !== 0x0a) throw new TzifError('missing footer')
  const end = bytes.indexOf(0x0a, footerAt + 1)
  if (end < 0) throw new TzifError('unterminated footer')
  let footer = ''
  for (let i = footerAt + 1; i < end; i++) {
    if (bytes[i]! < 0x20 || bytes[i]! > 0x7e) throw new TzifError('footer is not printable ASCII')
    footer += String.fromCharCode(bytes[i]!)
  }
  return { version: first.version, ...block, footer }
}
