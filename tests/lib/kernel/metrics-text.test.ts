import t from 'tap'
import { PairCounts, renderExposition } from '../../../lib/kernel/metrics-text.ts'
import { parseExposition, promtoolCheckMetrics } from '../../helpers/prometheus.ts'

t.test('families render as the text format: HELP, TYPE, escaped labels, special values', async (t) => {
  const text = renderExposition([
    { name: 'a_total', help: 'counts\\ and\nlines', type: 'counter', samples: [{ labels: { site: 'a"b\\c\nd' }, value: 3 }] },
    {
      name: 'b',
      help: 'a gauge',
      type: 'gauge',
      samples: [{ value: Number.NaN }, { labels: { x: 'inf' }, value: Infinity }, { labels: { x: 'minus' }, value: -Infinity }],
    },
    { name: 'c', help: 'no samples', type: 'gauge', samples: [] },
  ])
  t.equal(
    text,
    [
      '# HELP a_total counts\\\\ and\\nlines',
      '# TYPE a_total counter',
      'a_total{site="a\\"b\\\\c\\nd"} 3',
      '# HELP b a gauge',
      '# TYPE b gauge',
      'b NaN',
      'b{x="inf"} +Inf',
      'b{x="minus"} -Inf',
      '# HELP c no samples',
      '# TYPE c gauge',
      '',
    ].join('\n'),
  )
  t.same(parseExposition(text)[0], { name: 'a_total', labels: { site: 'a"b\\c\nd' }, value: 3 }, 'a parser gets the label back')
  t.equal(promtoolCheckMetrics(text).status, 0, 'promtool reads it')
})

t.test('bad names are refused (a programming error, found by the first scrape in a test)', async (t) => {
  t.throws(() => renderExposition([{ name: 'bad-name', help: '', type: 'gauge', samples: [] }]), /bad metric name/)
  t.throws(() => renderExposition([{ name: 'x', help: '', type: 'gauge', samples: [{ labels: { 'bad-label': '1' }, value: 1 }] }]), /bad label name/)
  t.throws(() => renderExposition([{ name: 'x', help: '', type: 'gauge', samples: [{ labels: { __reserved: '1' }, value: 1 }] }]), /bad label name/)
  t.throws(
    () =>
      renderExposition([
        { name: 'x', help: '', type: 'gauge', samples: [] },
        { name: 'x', help: '', type: 'gauge', samples: [] },
      ]),
    /twice/,
  )
})

t.test('PairCounts counts each pair', async (t) => {
  const counts = new PairCounts()
  counts.add('GET /a', 200)
  counts.add('GET /a', 200)
  counts.add('GET /a', 404)
  counts.add('POST /b', 200)
  t.same(
    [...counts.entries()],
    [
      ['GET /a', 200, 2],
      ['GET /a', 404, 1],
      ['POST /b', 200, 1],
    ],
  )
})
