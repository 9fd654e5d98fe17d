// A box without a clock, as it lives: a real gateway process under libfaketime starts with
// its wall clock hours off and "the system" (a stand-in timedatectl) saying it is not
// synchronised; orders are started, paged and cleared; then the wall clock is stepped to the
// right time (+3 h, and in a second run -2 h) and reported synchronised, as NTP does after
// boot. Elapsed times, lateness, statistics, history and paging stay right; a Standard
// Webhooks receiver in this process (real clock) accepts every delivery; the clock state
// shows in GET /api/v2/gateway and `gateway status`.
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import { Webhook } from 'standardwebhooks'
import { sendControl } from '../../runtime/control/control.ts'
import { fakeSystemClock } from '../helpers/faketime.ts'
import { runCli, startGatewayProcess } from '../helpers/process.ts'
import { until } from '../helpers/until.ts'
import { startReceiver } from '../helpers/webhooks.ts'

const hourMs = 3_600_000

async function scenario(t: Test, startOffsetHours: number): Promise<void> {
  const dir = t.testdir({})
  const dataDir = path.join(dir, 'data')
  const configFile = path.join(dir, 'gateway.config.json')
  writeFileSync(
    configFile,
    JSON.stringify({
      host: '127.0.0.1',
      radio: { kind: 'simulated' },
      mdns: { enabled: false },
      webhooks: { allowLoopback: true, retrySchedule: [200, 500, 1000] },
      clock: { syncCheckSeconds: 1, holdDeliveriesSeconds: 3600 },
    }),
  )
  const fake = fakeSystemClock(dir, `${startOffsetHours > 0 ? '+' : ''}${startOffsetHours}h`, false)
  const gw = await startGatewayProcess(dataDir, { ...fake.env, GATEWAY_CONFIG: configFile })
  t.teardown(() => gw.stop())

  await sendControl(dataDir, 'button.press')
  const generated = (await (await fetch(`${gw.url}/api/v2/accesstoken/generate?name=clock-test`)).json()) as any
  const token: string = generated.token.token
  const api = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`${gw.url}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return (await response.json()) as any
  }
  const clockState = async () => (await api('GET', '/api/v2/gateway')).gatewayStatus.clock

  // A Standard Webhooks receiver whose clock is right: it refuses a timestamp > 5 min off.
  const receiver = await startReceiver()
  t.teardown(() => receiver.close())
  const refused: string[] = []
  const accepted: any[] = []
  let verifier: Webhook | undefined
  receiver.respond = (request) => {
    if (request.method !== 'POST' || !verifier) return 200
    try {
      accepted.push(verifier.verify(request.body, request.headers as Record<string, string>))
      return 204
    } catch (error) {
      refused.push(`${(error as Error).message}: webhook-timestamp ${request.headers['webhook-timestamp']}`)
      return 400
    }
  }
  const registered = await api('POST', '/api/v2/register', { http_client: receiver.url })
  verifier = new Webhook(registered.webhook.secret)

  // The gateway is told the clock is not synchronised, and its time is hours off.
  await until(async () => (await clockState()).synchronized === false, 'the clock reported unsynchronised')
  t.match(await clockState(), { synchronized: false, source: 'timedatectl', holdingDeliveries: true, lastJump: null })
  const cli = await runCli(['status'], { GATEWAY_DATA_DIR: dataDir })
  t.match(cli.stdout, /clock: NOT synchronised \(timedatectl\); webhook deliveries wait for the time/, '`gateway status` says so')

  const status = await api('GET', '/api/v2/gateway')
  const offsetOf = (text: string) => Date.parse(`${text}${status.gatewayStatus.utcOffset}`)
  t.ok(Math.abs(offsetOf(status.gatewayStatus.currentTime) - Date.now() - startOffsetHours * hourMs) < 60_000, 'the gateway runs on the faked time')

  // Orders while the clock is wrong: 1 paged (tracking), 2 paged once, 3 cleared at once.
  for (const tracker of [1, 2, 3]) await api('POST', '/api/v2/simulator/start', { tracker })
  t.match(await api('POST', '/api/v2/activeorders/1/page', { tracking: true }), { status: 200 })
  t.match(await api('POST', '/api/v2/activeorders/2/page', { tracking: false }), { status: 200 })
  t.match(await api('DELETE', '/api/v2/activeorders/3'), { status: 200 })
  // Some real time passes, so a waiting time that stood still or went back would show.
  let before: any[] = []
  await until(
    async () => {
      before = (await api('GET', '/api/v2/activeorders')).items
      return before.every((order) => order.elapsedTime >= 2)
    },
    'orders two seconds old',
    20_000,
  )
  t.equal(before.length, 2)
  t.equal(receiver.posts().length, 0, 'nothing is delivered while the clock is known to be wrong')

  // NTP answers: the wall clock is stepped to the right time and reported synchronised.
  fake.offset('+0')
  fake.synchronized(true)
  await until(
    async () => {
      const state = await clockState()
      return state.synchronized === true && state.lastJump !== null && !state.holdingDeliveries
    },
    'the step mended and the clock trusted',
    20_000,
  )
  const state = await clockState()
  t.ok(Math.abs(state.lastJump.shiftMs + startOffsetHours * hourMs) < 10_000, `the step measured (${state.lastJump.shiftMs} ms)`)
  t.equal(state.lastJump.cause, 'system')
  t.equal(gw.output().split('the system clock was stepped').length - 1, 1, 'the step is logged once')

  // Elapsed times and lateness: measured, not inferred from the wall clock.
  const after = (await api('GET', '/api/v2/activeorders')).items as any[]
  for (const order of after) {
    const earlier = before.find((o) => o.uuid === order.uuid)
    t.ok(
      order.elapsedTime >= earlier.elapsedTime && order.elapsedTime < 300,
      `order ${order.name}: elapsed ${order.elapsedTime} s (was ${earlier.elapsedTime} s)`,
    )
    const now = await api('GET', '/api/v2/gateway')
    const created = Date.parse(`${order.created}${now.gatewayStatus.utcOffset}`)
    t.ok(Math.abs(created - Date.now()) < 300_000, `order ${order.name}: created ${order.created}, on the right time now`)
  }
  t.ok(Math.abs(offsetOf((await api('GET', '/api/v2/gateway')).gatewayStatus.currentTime) - Date.now()) < 60_000, 'the gateway follows the right time')

  // Paging: the tracking page goes on, the single page still runs its lease.
  t.equal((await api('GET', '/api/v2/activeorders/1/page')).paged, true, 'the tracking page goes on')
  t.equal((await api('GET', '/api/v2/activeorders/2/page')).paged, true, 'a single page is not cut by the step')
  const buzzing = ((await api('GET', '/api/v2/simulator')).simulator.trackers as any[]).filter((tracker) => tracker.buzzing)
  t.same(buzzing.map((tracker) => tracker.number).sort(), [1, 2], 'trackers 1 and 2 buzz')
  for (const tracker of buzzing) {
    const left = tracker.buzzingUntil - offsetOf((await api('GET', '/api/v2/gateway')).gatewayStatus.currentTime)
    t.ok(left > -2_000 && left <= 61_000, `tracker ${tracker.number}: its lease ends within a minute (${left} ms)`)
  }

  // Cleared after the step: neither over target nor hours long.
  t.match(await api('DELETE', '/api/v2/activeorders/1'), { status: 200 })
  const statistics = (await api('GET', '/api/v2/statistics')).statistics
  t.ok(statistics.ordersToday >= 1, 'cleared orders counted today')
  t.ok(statistics.averageSeconds < 300, `average ${statistics.averageSeconds} s`)
  t.equal(statistics.exceededToday, 0, 'nothing over target')
  const history = (await api('GET', '/api/v2/orders')).items as any[]
  t.equal(history.length, 2)
  for (const summary of history) {
    const started = Date.parse(summary.orderStarted)
    const cleared = Date.parse(summary.orderCleared)
    t.ok(Math.abs(cleared - Date.now()) < 300_000, `history ${summary.name}: cleared ${summary.orderCleared}, on the right time`)
    t.ok(cleared - started >= 0 && cleared - started < 300_000, `history ${summary.name}: ${(cleared - started) / 1000} s start to clear`)
  }

  // Every change reached the receiver, each accepted at the first attempt.
  await until(() => accepted.some((p) => p.name === '1' && p.changeType === 'ORDER_CLEARED'), 'the last change delivered')
  t.same(refused, [], 'the receiver refused nothing')
  t.equal(receiver.posts().length, accepted.length, 'every delivery accepted')
  const seqs = accepted.map((p) => p.seq)
  t.same(
    seqs,
    [...seqs].sort((a, b) => a - b),
    'in order',
  )
  t.ok(
    accepted.some((p) => p.name === '3' && p.changeType === 'ORDER_CLEARED'),
    'the change held from before the step too',
  )

  const synced = await runCli(['status'], { GATEWAY_DATA_DIR: dataDir })
  t.match(
    synced.stdout,
    new RegExp(`clock: synchronised \\(timedatectl\\); last step ${startOffsetHours > 0 ? '-' : '\\+'}${Math.abs(startOffsetHours)}h 0m \\d+s \\(system\\)`),
    '`gateway status` shows the step',
  )
}

t.test('the wall clock stepped +3 h while orders are active and paged', (t) => scenario(t, -3))
t.test('the wall clock stepped -2 h while orders are active and paged', (t) => scenario(t, 2))
