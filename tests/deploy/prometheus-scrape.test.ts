// A real Prometheus (Debian's) with deploy/prometheus/ as shipped (only its targets, token
// files and intervals changed) scrapes a gateway process and two HQ instances over real
// PostgreSQL and Mosquitto: every target is up, the figures arrive, and the rules load.
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { SimulatedSite } from '../../bench/hq-sites.ts'
import { freePort } from '../../bench/free-port.ts'
import { startPostgres } from '../helpers/postgres.ts'
import { runCli, startGatewayProcess } from '../helpers/process.ts'
import { prometheusDep, requireExecutable } from '../helpers/system-deps.ts'
import { until } from '../helpers/until.ts'
import { prefix, publishAll, publisher } from '../lib/hq/fixtures.ts'
import { startChain } from '../runtime/hq/fixtures.ts'

const deploy = path.resolve(import.meta.dirname, '../../deploy/prometheus')
const pg = await startPostgres({ fast: true })
t.teardown(() => pg.destroy())

t.test('Prometheus scrapes a gateway and HQ with the shipped config and loads the rules', async (t) => {
  // The chain first: it takes the test's fixture dir (t.testdir() empties it when called).
  const chain = await startChain(t, pg)
  const dir = mkdtempSync(path.join(os.tmpdir(), 'prometheus-scrape-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const gateway = await startGatewayProcess(path.join(dir, 'data'))
  t.teardown(() => gateway.stop())
  const minted = await runCli(['token', 'create', 'prometheus', '--scope', 'read', '--data-dir', path.join(dir, 'data')])
  t.equal(minted.code, 0, minted.stderr)
  writeFileSync(path.join(dir, 'gateway.token'), minted.stdout.split('\n')[0]!)

  writeFileSync(path.join(dir, 'hq.token'), chain.token)
  const client = await publisher(chain.broker.url)
  t.teardown(() => client.endAsync(true))
  await publishAll(client, [new SimulatedSite('paris-11', { prefix, startedAt: Date.now() - 60_000 }).status(true)])

  const hqTargets = [chain.a, chain.b].map((instance) => `"127.0.0.1:${instance.port}"`).join(', ')
  const config = readFileSync(path.join(deploy, 'prometheus.yml'), 'utf8')
    .replaceAll('/etc/prometheus/', `${dir}/`)
    .replace(/scrape_interval: 15s/, 'scrape_interval: 1s')
    .replace(/evaluation_interval: 15s/, 'evaluation_interval: 1s')
    .replace(/targets: \[[^\]]*\]/, `targets: [${hqTargets}]`)
  writeFileSync(path.join(dir, 'prometheus.yml'), config)
  writeFileSync(path.join(dir, 'rules.yml'), readFileSync(path.join(deploy, 'rules.yml')))
  writeFileSync(path.join(dir, 'gateways.yml'), `- targets: ["127.0.0.1:${gateway.port}"]\n`)

  const port = await freePort()
  const prometheus = spawn(
    requireExecutable(prometheusDep),
    [`--config.file=${path.join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${path.join(dir, 'tsdb')}`, `--web.listen-address=127.0.0.1:${port}`],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  )
  let log = ''
  prometheus.stderr.on('data', (chunk) => (log += chunk))
  t.teardown(() => {
    if (prometheus.exitCode === null) prometheus.kill('SIGTERM')
  })
  const api = async (route: string) => {
    const response = await fetch(`http://127.0.0.1:${port}/api/v1/${route}`).catch(() => undefined)
    return response?.ok ? ((await response.json()) as { data: any }).data : undefined
  }
  type Target = { labels: { job: string }; health: string; lastError: string }
  let seen: Target[] = []
  await until(async () => {
    seen = ((await api('targets'))?.activeTargets ?? []) as Target[]
    return seen.length === 3 && seen.every((target) => target.health === 'up')
  }, 'every target up').catch((error: Error) => {
    throw new Error(`${error.message}: ${JSON.stringify(seen)}\n${log.slice(-2000)}`)
  })
  const targets = (await api('targets')).activeTargets as Target[]
  t.same(targets.map((target) => target.labels.job).sort(), ['tracker-gateway', 'tracker-hq', 'tracker-hq'])

  const value = async (query: string) => (await api(`query?query=${encodeURIComponent(query)}`))?.result as { value: [number, string] }[] | undefined
  await until(async () => ((await value('hq_site_online{site="paris-11"}'))?.length ?? 0) === 2, 'paris online from both instances')
  t.equal((await value('max by (site) (hq_site_online)'))![0]!.value[1], '1')
  t.equal((await value('tracker_gateway_radio_up'))![0]!.value[1], '1', "the gateway's simulated radio is up")
  t.equal((await value('tracker_gateway_orders_late'))![0]!.value[1], '0')
  // The request-duration histograms as Prometheus reads them: each scrape is a request to the
  // metrics route, counted (by its template) once answered, so from the second scrape on.
  const scrapesCounted = async (metric: string, route: string) =>
    Number((await value(`sum(${metric}_count{route="${route}"})`))?.[0]?.value[1] ?? 0) > 0 &&
    ((await value(`histogram_quantile(0.5, sum by (le) (${metric}_bucket{route="${route}"}))`))?.length ?? 0) === 1
  await until(() => scrapesCounted('tracker_gateway_http_request_duration_seconds', '/api/v2/metrics'), "the gateway's scrapes in its histogram")
  await until(() => scrapesCounted('hq_http_request_duration_seconds', '/api/hq/metrics'), "HQ's scrapes in its histogram")
  const rules = (await api('rules')).groups as { name: string; rules: unknown[] }[]
  t.same(rules.map((group) => [group.name, group.rules.length]).sort(), [
    ['tracker-gateway', 8],
    ['tracker-hq', 9],
  ])
})
