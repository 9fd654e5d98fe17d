// Reading Prometheus' text format in tests, and linting it with the real promtool
// (`promtool check metrics`, Debian's prometheus package: tests/helpers/system-deps.ts).
import { spawnSync } from 'node:child_process'
import { promtoolDep, requireExecutable } from './system-deps.ts'

export interface ParsedSample {
  name: string
  labels: Record<string, string>
  value: number
}

const sampleLine = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/
const labelPair = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

/** Every sample of an exposition (HELP and TYPE lines skipped); a line it cannot read throws. */
export function parseExposition(text: string): ParsedSample[] {
  const samples: ParsedSample[] = []
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const match = sampleLine.exec(line)
    if (!match) throw new Error(`not a sample line: ${line}`)
    const labels: Record<string, string> = {}
    for (const [, name, value] of (match[2] ?? '').matchAll(labelPair)) labels[name!] = value!.replace(/\\n/g, '\n').replace(/\\(["\\])/g, '$1')
    samples.push({ name: match[1]!, labels, value: match[3] === 'NaN' ? Number.NaN : Number(match[3]) })
  }
  return samples
}

/** The value of the one sample of `name` whose labels include `labels`, or undefined. */
export function sampleValue(samples: ParsedSample[], name: string, labels: Record<string, string> = {}): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value
}

/** The metric names an exposition declares (its TYPE lines; a histogram's series too). */
export function declaredNames(text: string): Set<string> {
  return new Set(
    [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].flatMap(([, name, type]) =>
      type === 'histogram' ? [`${name}_bucket`, `${name}_sum`, `${name}_count`] : [name!],
    ),
  )
}

/** `promtool check metrics` on the text: its complaints ('' when none). */
export function promtoolCheckMetrics(text: string): { status: number | null; output: string } {
  const result = spawnSync(requireExecutable(promtoolDep), ['check', 'metrics'], { input: text, encoding: 'utf8' })
  return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() }
}
