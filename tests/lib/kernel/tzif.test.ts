import t from 'tap'
import { parseTzif, TzifError } from '../../../lib/kernel/tzif.ts'
import { buildTzif } from '../../helpers/tzif.ts'

const berlinLike = {
  transitions: [-2_422_054_408, 1_711_846_800, 1_729_990_800],
  transitionTypes: [1, 2, 1],
  types: [
    { utoff: 3208, abbr: 'LMT' },
    { utoff: 3600, abbr: 'CET' },
    { utoff: 7200, isDst: true, abbr: 'CEST' },
  ],
}

t.test('a version 1 file: the 32-bit block, no footer', async (t) => {
  const data = parseTzif(buildTzif({ version: 1, ...berlinLike, transitions: [-2_147_483_648, 1_711_846_800, 1_729_990_800] }))
  t.equal(data.version, 1)
  t.same(data.transitions, [-2_147_483_648, 1_711_846_800, 1_729_990_800])
  t.same(data.transitionTypes, [1, 2, 1])
  t.same(data.types, [
    { utoff: 3208, isDst: false },
    { utoff: 3600, isDst: false },
    { utoff: 7200, isDst: true },
  ])
  t.equal(data.footer, '')
})

t.test('versions 2 to 4: the 64-bit block (instants before 1901) and the footer, the 32-bit block skipped', async (t) => {
  for (const version of [2, 3, 4] as const) {
    const data = parseTzif(buildTzif({ version, ...berlinLike, footer: 'CET-1CEST,M3.5.0,M10.5.0/3' }))
    t.equal(data.version, version)
    t.same(data.transitions, berlinLike.transitions, `v${version}: 64-bit times`)
    t.equal(data.types.length, 3, `v${version}: not the placeholder block's one type`)
    t.equal(data.footer, 'CET-1CEST,M3.5.0,M10.5.0/3')
  }
})

t.test('a slim file: no transitions, one type, everything in the footer', async (t) => {
  const data = parseTzif(buildTzif({ version: 2, types: [{ utoff: -18000, abbr: 'EST' }], footer: 'EST5EDT,M3.2.0,M11.1.0' }))
  t.same(data.transitions, [])
  t.equal(data.footer, 'EST5EDT,M3.2.0,M11.1.0')
  t.equal(parseTzif(buildTzif({ version: 2, types: [{ utoff: 0 }] })).footer, '', 'an empty footer')
})

t.test('malformed files are refused with a TzifError', async (t) => {
  const good = buildTzif({ version: 2, ...berlinLike, footer: 'CET-1CEST,M3.5.0,M10.5.0/3' })
  const altered = (change: (b: Buffer) => void) => {
    const copy = Buffer.from(good)
    change(copy)
    return copy
  }
  const withByte = (bytes: Buffer, at: number, value: number) => {
    bytes[at] = value
    return bytes
  }
  const secondHeader = good.indexOf('TZif', 4)
  const cases: Array<[string, Uint8Array, RegExp]> = [
    ['bad magic', altered((b) => b.write('TZix', 0, 'latin1')), /magic/],
    ['empty', new Uint8Array(0), /truncated/],
    [
      'unknown version',
      altered((b) => {
        b[4] = 0x35
        b[secondHeader + 4] = 0x35
      }),
      /version/,
    ],
    [
      'headers disagree',
      altered((b) => {
        b[secondHeader + 4] = 0x33
      }),
      /disagree/,
    ],
    ['no types', buildTzif({ version: 1, types: [] }), /no local time types/],
    ['leap seconds', altered((b) => b.writeUInt32BE(1, 28)), /leap/],
    ['UT indicators', altered((b) => b.writeUInt32BE(2, 20)), /UT indicator/],
    ['std indicators', altered((b) => b.writeUInt32BE(2, 24)), /standard indicator/],
    ['type out of range', buildTzif({ version: 2, transitions: [0], transitionTypes: [3], types: [{ utoff: 0 }] }), /missing local time type/],
    ['not ascending', buildTzif({ version: 2, transitions: [10, 10], transitionTypes: [0, 0], types: [{ utoff: 0 }] }), /ascending/],
    ['absurd offset', buildTzif({ version: 1, types: [{ utoff: 100_000 }] }), /implausible/],
    ['bad isdst', withByte(buildTzif({ version: 1, types: [{ utoff: 0 }] }), 44 + 4, 7), /DST indicator/],
    ['bad designation', withByte(buildTzif({ version: 1, types: [{ utoff: 0 }] }), 44 + 5, 9), /designation/],
    ['no footer', good.subarray(0, good.lastIndexOf(0x0a, good.length - 2)), /footer/],
    ['unterminated footer', good.subarray(0, good.length - 1), /unterminated/],
    [
      'binary footer',
      altered((b) => {
        b[b.length - 2] = 0x01
      }),
      /ASCII/,
    ],
  ]
  for (const [name, bytes, message] of cases) t.throws(() => parseTzif(bytes), { name: 'TzifError', message }, name)
  // Every truncation of a valid file is refused cleanly, never read past its end.
  for (let length = 0; length < good.length; length++) {
    try {
      parseTzif(good.subarray(0, length))
      t.fail(`a file cut to ${length} bytes was accepted`)
    } catch (error) {
      if (!(error instanceof TzifError)) t.fail(`cut to ${length} bytes: ${String(error)}`)
    }
  }
})
