// deploy/prometheus/ and deploy/grafana/ as shipped, against the real promtool (Debian's
// prometheus package): the alert rules load and pass their unit tests, the scrape config
// loads, and every metric the rules and the dashboard query is one a gateway or HQ serves
// (their expositions, rendered here), with every dashboard query valid PromQL.
import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { hqConfigSchema } from '../../lib/hq/config.ts'
import { hqExposition } from '../../lib/hq/metrics.ts'
import type { SqlClient } from '../../lib/store/postgres.ts'
import { testGateway } from '../helpers/gateway.ts'
import { declaredNames } from '../helpers/prometheus.ts'
import { promtoolDep, requireExecutable } from '../helpers/system-deps.ts'

const deploy = path.resolve(import.meta.dirname, '../../deploy')
const promtool = requireExecutable(promtoolDep)

function run(args: string[], cwd = deploy): { status: number | null; output: string } {
  const result = spawnSync(promtool, args, { cwd, encoding: 'utf8' })
  return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() }
}

/** Every name a gateway or HQ declares: a gateway's from a test gateway, HQ's over an empty chain. */
async function servedNames(): Promise<Set<string>> {
  const gw = await testGateway()
  const gateway = await gw.services.metrics.exposition()
  gw.services.webhooks.close()
  const empty: SqlClient = { query: async () => ({ rows: [], rowCount: 0 }) }
  const config = hqConfigSchema.parse({ broker: { url: 'mqtt://127.0.0.1:1' }, postgresUrl: 'postgres://x/y', instanceId: 'a' })
  const ingest = { connected: false, subscribed: false, pending: 0, applied: { events: 0, history: 0, statuses: 0, batches: 0 }, rejected: 0, lastError: null }
  const hq = await hqExposition({ db: empty, config, ingest, sites: new Map(), replays: { requests: 0, lostRanges: 0 } })
  return new Set([...declaredNames(gateway), ...declaredNames(hq)])
}

/** The metric names a PromQL expression reads (ours, by their prefixes), label lists and matchers aside. */
const queried = (expr: string) =>
  [...expr.replace(/\b(by|without)\s*\([^)]*\)|\{[^}]*\}/g, '').matchAll(/\b(?:tracker_gateway|hq|process)_[a-z0-9_]+\b/g)].map((m) => m[0])

const rules = readFileSync(path.join(deploy, 'prometheus/rules.yml'), 'utf8')
const dashboard = JSON.parse(readFileSync(path.join(deploy, 'grafana/tracker-chain.json'), 'utf8')) as {
  panels: { title: string; targets?: { expr: string }[] }[]
}
const dashboardQueries = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ panel: panel.title, expr: target.expr })))

t.test('the alert rules load and pass their unit tests', async (t) => {
  const check = run(['check', 'rules', 'prometheus/rules.yml'])
  t.equal(check.status, 0, check.output)
  const unit = run(['test', 'rules', 'rules.test.yml'], path.join(deploy, 'prometheus'))
  t.equal(unit.status, 0, unit.output)
  t.match(unit.output, /SUCCESS/)
})

t.test('the scrape config loads (its token files in place)', async (t) => {
  const dir = t.testdir({ 'hq.token': 'hq_x\n', 'gateway.token': 'x\n', 'gateways.yml': "- targets: ['paris-11.vpn:8000']\n" })
  const config = readFileSync(path.join(deploy, 'prometheus/prometheus.yml'), 'utf8').replaceAll('/etc/prometheus/', `${dir}/`)
  writeFileSync(path.join(dir, 'prometheus.yml'), config)
  writeFileSync(path.join(dir, 'rules.yml'), rules)
  const check = run(['check', 'config', path.join(dir, 'prometheus.yml')])
  t.equal(check.status, 0, check.output)
  t.match(check.output, /SUCCESS: 17 rules found/)
})

t.test('every metric the rules and the dashboard read is served, every dashboard query parses', async (t) => {
  const served = await servedNames()
  t.ok(served.size > 30, `${served.size} names served`)
  const ruleNames = new Set([...rules.matchAll(/^\s*expr: (.*)$/gm)].flatMap((m) => queried(m[1]!)))
  t.ok(ruleNames.size > 10, `${ruleNames.size} names in the rules`)
  for (const name of ruleNames) t.ok(served.has(name), `rules.yml reads ${name}`)
  t.ok(dashboardQueries.length > 25, `${dashboardQueries.length} dashboard queries`)
  for (const { panel, expr } of dashboardQueries) {
    const names = queried(expr)
    t.ok(names.length > 0, `${panel}: ${expr} reads a metric of ours`)
    for (const name of names) t.ok(served.has(name), `${panel} reads ${name}`)
  }
  // Each query as a recording rule, with the dashboard's variable filled in: promtool parses them all.
  const dir = t.testdir()
  const asRules = dashboardQueries.map(
    ({ expr }, i) => `      - record: dashboard:query_${i}\n        expr: ${JSON.stringify(expr.replaceAll('$gateway', '.*'))}`,
  )
  writeFileSync(path.join(dir, 'dashboard.yml'), `groups:\n  - name: dashboard\n    rules:\n${asRules.join('\n')}\n`)
  const check = run(['check', 'rules', path.join(dir, 'dashboard.yml')])
  t.equal(check.status, 0, check.output)
})
