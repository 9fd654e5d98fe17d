// The <img> register of issue 25, as it happens on a restaurant's LAN: the gateway, a page on
// another LAN host and the browser showing it each on a non-loopback address (10.77.0.x, in a
// network namespace this test makes, so nothing leaves it), with real Chromium. To such an
// address Chromium sends no Sec-Fetch-* headers and an <img> GET carries no Origin; the
// Referer is the only sign of the other site, and a page can strip even that. Both are
// refused: the first by the request guard (403), the second by the rule that an
// unauthenticated v1 registration only registers the caller's own address (400). Nothing is
// registered and the attacker's URL receives nothing, not even the HEAD probe.
import { spawn, type ChildProcess } from 'node:child_process'
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromium } from 'playwright-core'
import t, { type Test } from 'tap'
import { sendControl } from '../../runtime/control/control.ts'
import { makeNamespace, type Namespace, netnsUnavailable } from '../helpers/netns.ts'
import { cliPath } from '../helpers/process.ts'
import { chromiumDep, requireExecutable } from '../helpers/system-deps.ts'
import { until } from '../helpers/until.ts'

const gatewayAddress = '10.77.0.1'
const attackerAddress = '10.77.0.2'
const mirrorAddress = '10.77.0.3'
const attackerServer = path.resolve(import.meta.dirname, '../helpers/attacker-server.ts')

/** A child inside the namespace whose output is collected; killed at teardown. */
function runInside(t: Test, ns: Namespace, args: string[], env: Record<string, string> = {}): { child: ChildProcess; output: () => string } {
  const [command, ...prefix] = ns.prefix
  const child = spawn(command, [...prefix, ...args], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] })
  let output = ''
  child.stdout!.on('data', (chunk) => (output += chunk))
  child.stderr!.on('data', (chunk) => (output += chunk))
  t.teardown(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.stdin!.end()
    child.kill('SIGTERM')
    await exited
  })
  return { child, output: () => output }
}

const lines = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, any>)

t.test('an <img> on a page of another LAN host registers nothing, with or without its referrer', { skip: netnsUnavailable() }, async (t) => {
  const ns = makeNamespace(t, [gatewayAddress, attackerAddress, mirrorAddress])
  const work = mkdtempSync(path.join(tmpdir(), 'gw-csrf-'))
  t.teardown(() => rmSync(work, { recursive: true, force: true }))
  const dataDir = path.join(work, 'data')
  const configFile = path.join(work, 'gateway.config.json')
  writeFileSync(configFile, JSON.stringify({ host: gatewayAddress, port: 0, dataDir, mdns: { enabled: false }, radio: { kind: 'simulated' } }))

  const gateway = runInside(t, ns, [process.execPath, '--disable-warning=ExperimentalWarning', cliPath, 'start', '--config', configFile], { LOG_LEVEL: 'info' })
  await until(() => /"msg":"gateway started"/.test(gateway.output()), 'the gateway started in the namespace')
  const port = Number(/"port":(\d+)[^\n]*"msg":"gateway started"/.exec(gateway.output())![1])
  const gatewayUrl = `http://${gatewayAddress}:${port}`

  const attacker = runInside(t, ns, [
    process.execPath,
    '--disable-warning=ExperimentalWarning',
    attackerServer,
    JSON.stringify({ page: attackerAddress, mirror: mirrorAddress, gateway: gatewayUrl }),
  ])
  await until(() => lines(attacker.output()).some((line) => 'pagePort' in line), 'the attacker page server')
  const { pagePort } = lines(attacker.output()).find((line) => 'pagePort' in line)!

  // Chromium inside the namespace: playwright talks to it over pipes, which cross namespaces.
  const wrapper = path.join(work, 'chromium-in-namespace')
  writeFileSync(wrapper, `#!/bin/sh\nexec ${ns.prefix.join(' ')} '${requireExecutable(chromiumDep)}' "$@"\n`)
  chmodSync(wrapper, 0o700)
  const browser = await chromium.launch({
    executablePath: wrapper,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  })
  t.teardown(() => browser.close())
  const page = await (await browser.newContext()).newPage()
  await page.goto(`http://${attackerAddress}:${pagePort}/page.html`)
  await page.waitForFunction(() => (window as unknown as { results?: unknown }).results !== undefined)
  const results = (await page.evaluate(() => (window as unknown as { results: Record<string, string> }).results)) as Record<string, string>
  t.equal(results.control, 'load', 'the page reaches the gateway (its icon loads), so the <img> requests did too')

  // What the browser sends to a plain-http LAN address: no Fetch Metadata, a Referer.
  const probe = lines(attacker.output()).find((line) => line.server === 'mirror')
  t.ok(probe, 'the mirror saw the image request')
  t.comment(`headers Chromium sent to another LAN address for an <img>: ${Object.keys(probe?.headers ?? {}).join(', ')}`)

  const requestLines = () => lines(gateway.output()).filter((line) => line.msg === 'request' && line.path === '/api/v1/register')
  await until(() => requestLines().length >= 2, 'both register requests logged by the gateway')
  t.same(
    requestLines()
      .map((line) => line.status)
      .sort(),
    [400, 403],
    'with its Referer: 403 (another site); without: 400 (not the caller’s own address)',
  )

  t.same(await sendControl(dataDir, 'webhooks.list'), [], 'no callback URL registered')
  const hooks = lines(attacker.output()).filter((line) => line.server === 'page' && String(line.url).startsWith('/hook'))
  t.same(hooks, [], 'the attacker’s URLs received nothing, not even the HEAD probe')

  // The same from the attacker's host for its own address is what v1 allows any LAN device:
  // it shows the listing above would have shown a registration.
  const target = `${gatewayUrl}/api/v1/register?http_client=${encodeURIComponent(`http://${attackerAddress}:${pagePort}/hook-self`)}`
  const fromAttacker = `http.get(${JSON.stringify(target)}, { localAddress: ${JSON.stringify(attackerAddress)} }, (res) => res.pipe(process.stdout))`
  const self = runInside(t, ns, [process.execPath, '-e', `const http = require('node:http'); ${fromAttacker}`])
  await new Promise((resolve) => self.child.once('exit', resolve))
  t.match(JSON.parse(self.output()), { status: 200 }, `a device registering itself: ${self.output()}`)
  t.match(await sendControl(dataDir, 'webhooks.list'), [{ url: `http://${attackerAddress}:${pagePort}/hook-self` }])
})
