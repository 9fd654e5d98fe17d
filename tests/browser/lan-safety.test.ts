// A hostile web page open in a browser on the restaurant's LAN (docs/api.md, "The LAN and browsers"), in real
// headless Chromium: a page of another site (its own HTTP server on another port, named
// evil.test) tries no-cors POSTs, a text/plain form and an <img> registering a webhook
// against the unauthenticated v1 API; a page on a name rebound to the gateway's address
// (rebound.test, DNS rebinding) tries to read orders and open the feed. Nothing may change or leak.
// Chromium's --host-resolver-rules sends every *.test name to 127.0.0.1.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { parseConfig } from '../../lib/config.ts'
import { memoryLogger } from '../helpers/memory-logger.ts'
import { startCheckedGateway } from '../helpers/checked-gateway.ts'
import { firstToken, launchBrowser } from '../helpers/browser.ts'

function listen(server: http.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)))
}

/** The attacker's page: every request a page may make of another origin without CORS. */
function hostilePage(gateway: string, receiver: string): string {
  return `<!doctype html><body><script>
const gw = ${JSON.stringify(gateway)}
const post = (path, body) => fetch(gw + path, { method: 'POST', mode: 'no-cors', body }).catch(() => undefined)
async function run() {
  await post('/api/v1/activeorders', '{"name":5,"locationName":9}')
  await post('/api/v1/activeorders/5/page', '{"tracking":true}')
  await post('/api/v1/activeorders?dummy_tracker_address=true', '{"name":44,"orderType":"TO_GO"}')
  await new Promise((resolve) => {
    const img = new Image()
    img.onload = img.onerror = resolve
    img.src = gw + '/api/v1/register?http_client=' + encodeURIComponent(${JSON.stringify(receiver)})
  })
  await new Promise((resolve) => {
    const frame = document.createElement('iframe')
    frame.name = 'sink'
    document.body.append(frame)
    const form = document.createElement('form')
    Object.assign(form, { method: 'post', enctype: 'text/plain', target: 'sink', action: gw + '/api/v1/activeorders/5/page' })
    const input = document.createElement('input')
    Object.assign(input, { name: '{"tracking":true,"x":"', value: '"}' })
    form.append(input)
    document.body.append(form)
    form.submit()
    // Set after the blank frame's own load: this one is the form's answer.
    frame.onload = resolve
  })
  window.done = true
}
run()
</script></body>`
}

t.test('a page of another site changes nothing, and a rebound name reads nothing', async (t) => {
  const dataDir = t.testdir()
  const memory = memoryLogger('info')
  const config = parseConfig({ port: 0, host: '127.0.0.1', dataDir, mdns: { enabled: false }, webhooks: { allowLoopback: true } })
  const gateway = await startCheckedGateway({ config, log: memory.log })
  t.teardown(() => gateway.stop())
  const base = `http://127.0.0.1:${gateway.port}`
  const token = await firstToken(gateway, dataDir)
  const api = async (route: string, init: RequestInit = {}) => {
    const response = await fetch(`${base}${route}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } })
    return (await response.json()) as any
  }
  // Order 5 on tracker 5, as a starter unit would make it.
  await api('/api/v2/simulator/start', { method: 'POST', body: JSON.stringify({ tracker: 5 }) })

  // A webhook receiver that would accept the registration (it answers the HEAD probe).
  const probes: string[] = []
  const receiver = http.createServer((req, res) => {
    probes.push(`${req.method} ${req.url}`)
    res.end()
  })
  const receiverPort = await listen(receiver)
  t.teardown(() => receiver.close())

  const state = async () => ({
    orders: (await api('/api/v2/activeorders')).items.map(({ elapsedTime: _, ...order }: Record<string, unknown>) => order),
    webhooks: (await api('/api/v2/register')).webhooks,
    trackers: (await api('/api/v2/simulator')).simulator.trackers,
  })
  const before = await state()
  t.equal(before.orders.length, 1, 'one order to protect')

  const evil = http.createServer((_req, res) => {
    res.setHeader('content-type', 'text/html')
    res.end(hostilePage(base, `http://127.0.0.1:${receiverPort}/hook`))
  })
  const evilPort = await listen(evil)
  t.teardown(() => evil.close())

  const browser = await launchBrowser(t, ['--host-resolver-rules=MAP *.test 127.0.0.1'])
  const context = await browser.newContext()
  const page = await context.newPage()
  await page.goto(`http://evil.test:${evilPort}/`)
  await page.waitForFunction(() => (window as unknown as { done?: boolean }).done === true)

  const refused = memory
    .lines()
    .filter((line) => line.msg === 'request' && line.status === 403)
    .map((line) => `${line.method} ${line.path}`)
  t.same(
    refused.sort(),
    ['GET /api/v1/register', 'POST /api/v1/activeorders', 'POST /api/v1/activeorders', 'POST /api/v1/activeorders/5/page', 'POST /api/v1/activeorders/5/page'],
    'every hostile request reached the gateway and was refused with 403',
  )
  t.same(await state(), before, 'no order, location, paging or webhook changed')
  t.same(probes, [], 'the receiver was never probed')

  // DNS rebinding: the attacker's page was served for rebound.test, whose name now points at
  // the gateway, so its requests are same-origin to the browser but name a foreign Host.
  const rebound = `http://rebound.test:${gateway.port}`
  const victim = await context.newPage()
  // The attacker's script ran in a page of that origin; evaluate() stands in for it (a
  // page served by anything but the real address would count as public to Chromium).
  await victim.goto(`${rebound}/`)
  const reads = await victim.evaluate(async () => {
    const out: { path: string; status: number; text: string }[] = []
    for (const path of ['/api/v1/activeorders', '/api/v1/orders', '/api/v1/statistics', '/api/v2', '/']) {
      const response = await fetch(path)
      out.push({ path, status: response.status, text: await response.text() })
    }
    const posted = await fetch('/api/v1/activeorders/5/page', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"tracking":true}' })
    out.push({ path: '/api/v1/activeorders/5/page (POST)', status: posted.status, text: await posted.text() })
    return out
  })
  for (const read of reads) {
    t.equal(read.status, 421, `${read.path}: 421`)
    t.same(
      JSON.parse(read.text),
      { status: 421, message: 'Unknown host', ...(read.path.startsWith('/api/v1') ? {} : { returnCode: -41 }) },
      `${read.path}: nothing but the refusal`,
    )
  }
  const socketRefused = await victim.evaluate(
    () =>
      new Promise<boolean>((resolve) => {
        const socket = new WebSocket(`ws://${location.host}/api/v2/websocket`)
        socket.onopen = () => resolve(false)
        socket.onerror = () => resolve(true)
      }),
  )
  t.ok(socketRefused, 'no WebSocket through the rebound name either')
  t.same(await state(), before, 'still nothing changed')
})
