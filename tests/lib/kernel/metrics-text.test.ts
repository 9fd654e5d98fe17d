import t from 'tap'
import { DurationHistograms, PairCounts, durationBuckets, methodAndRoute, renderExposition } from '../../../lib/kernel/metrics-text.ts'
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

t.test('DurationHistograms: cumulative buckets (a bound counts in its own), +Inf, sum and count per key, in the text format', async (t) => {
  t.same(durationBuckets, [0.005, 0.025, 0.1, 0.5, 2.5])
  const durations = new DurationHistograms()
  for (const seconds of [0.001, 0.005, 0.02, 0.3, 3]) durations.observe('GET /a/:id', seconds)
  durations.observe('POST /b', 0.05)
  const text = renderExposition([{ name: 'x_seconds', help: 'durations', type: 'histogram', samples: durations.samples(methodAndRoute) }])
  t.equal(
    text,
    [
      '# HELP x_seconds durations',
      '# TYPE x_seconds histogram',
      'x_seconds_bucket{method="GET",route="/a/:id",le="0.005"} 2',
      'x_seconds_bucket{method="GET",route="/a/:id",le="0.025"} 3',
      'x_seconds_bucket{method="GET",route="/a/:id",le="0.1"} 3',
      'x_seconds_bucket{method="GET",route="/a/:id",le="0.5"} 4',
      'x_seconds_bucket{method="GET",route="/a/:id",le="2.5"} 4',
      'x_seconds_bucket{method="GET",route="/a/:id",le="+Inf"} 5',
      'x_seconds_sum{method="GET",route="/a/:id"} 3.326',
      'x_seconds_count{method="GET",route="/a/:id"} 5',
      'x_seconds_bucket{method="POST",route="/b",le="0.005"} 0',
      'x_seconds_bucket{method="POST",route="/b",le="0.025"} 0',
      'x_seconds_bucket{method="POST",route="/b",le="0.1"} 1',
      'x_seconds_bucket{method="POST",route="/b",le="0.5"} 1',
      'x_seconds_bucket{method="POST",route="/b",le="2.5"} 1',
      'x_seconds_bucket{method="POST",route="/b",le="+Inf"} 1',
      'x_seconds_sum{method="POST",route="/b"} 0.05',
      'x_seconds_count{method="POST",route="/b"} 1',
      '',
    ].join('\n'),
  )
  t.equal(promtoolCheckMetrics(text).status, 0, `promtool reads it ${promtoolCheckMetrics(text).output}`)
  t.equal(
    renderExposition([{ name: 'y_seconds', help: 'none yet', type: 'histogram', samples: new DurationHistograms().samples(methodAndRoute) }]),
    '# HELP y_seconds none yet\n# TYPE y_seconds histogram\n',
  )
})
