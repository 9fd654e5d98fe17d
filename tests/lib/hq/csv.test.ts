import t from 'tap'
import { toCsv } from '../../../lib/hq/csv.ts'

t.test('RFC 4180: quoted where needed, CRLF lines, empty for null; formulas defused', async (t) => {
  const csv = toCsv(
    ['a', 'b', 'c'],
    [
      { a: 'plain', b: 12, c: null },
      { a: 'with, comma', b: 'say "hi"', c: 'two\nlines' },
      { a: '=HYPERLINK("x")', b: -5, c: '@SUM(A1)' },
      { a: true, b: '+1', c: '-x' },
    ],
  )
  t.equal(csv, ['a,b,c', 'plain,12,', '"with, comma","say ""hi""","two\nlines"', `"'=HYPERLINK(""x"")",-5,'@SUM(A1)`, "true,'+1,'-x", ''].join('\r\n'))
})
