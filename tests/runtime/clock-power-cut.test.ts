// A power cut with orders on the board (issue 40), as a restaurant lives it: a real gateway
// process under libfaketime takes orders on a right, synchronised clock; it is killed
// (SIGKILL: no shutdown, as a power cut); it comes back with its wall clock a day behind and
// the system (a stand-in timedatectl) saying "not synchronised"; later network time answers:
// the clock is stepped forward and reported synchronised. The orders from before the cut
// keep their true waiting times throughout (never 0, never dated tomorrow), an order taken
// on the wrong clock is mended by the step, every history row ends after it starts,
// statistics are what the rows say, and `gateway history export` then `import` accepts the
// rows. The clock state tells of the start behind the times already written.
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { checkFetchAnswers } from '../helpers/documented-responses.ts'
import { sendControl } from '../../runtime/control/control.ts'
import { fakeSystemClock } from '../helpers/faketime.ts'
import { runCli, startGatewayProcess, type GatewayProcess } from '../helpers/process.ts'
import { until } from '../helpers/until.ts'

const dayMs = 86_400_000

t.test('orders created before a power cut keep their waiting times through a boot a day behind and the step forward', async (t) => {
  checkFetchAnswers(t)
  const dir = t.testdir({})
  const dataDir = path.join(dir, 'data')
  const configFile = path.join(dir, 'gateway.config.json')
  writeFileSync(
    configFile,
    JSON.stringify({
      host: '127.0.0.1',
      radio: { kind: 'simulated' },
      mdns: { enabled: false },
      clock: { syncCheckSeconds: 1 },
    }),
  )
  const fake = fakeSystemClock(dir, '+0', true)
  const start = async (): Promise<GatewayProcess> => {
    const gw = await startGatewayProcess(dataDir, { ...fake.env, GATEWAY_CONFIG: configFile })
    t.teardown(() => gw.stop())
    return gw
  }
  let gw = await start()
  await sendControl(dataDir, 'button.press')
  const token: string = ((await (await fetch(`${gw.url}/api/v2/accesstoken/generate?name=power-cut`)).json()) as any).token.token
  const api = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`${gw.url}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return (await response.json()) as any
  }
  const status = async () => (await api('GET', '/api/v2/gateway')).gatewayStatus
  const orders = async () => (await api('GET', '/api/v2/activeorders')).items as any[]
  /** An order's time as the real clock reads it (the API gives local time without offset). */
  const at = (local: string, utcOffset: string) => Date.parse(`${local}${utcOffset}`)

  // Run 1, on a right clock the system says is synchronised: three orders.
  await until(async () => (await status()).clock.synchronized === true, 'the clock reported synchronised', 20_000)
  const createdAt = new Map<number, number>()
  for (const name of [1, 2]) {
    createdAt.set(name, Date.now())
    t.match(await api('POST', '/api/v2/activeorders', { name, orderType: 'ON_PREMISE' }), { status: 200 })
  }
  let beforeCut: any[] = []
  await until(async () => (beforeCut = await orders()).every((order) => order.elapsedTime >= 3), 'orders three seconds old', 30_000)

  // The power goes: no shutdown. The box boots with its saved time, a day behind, and the
  // system says its clock is not synchronised.
  await gw.stop('SIGKILL')
  fake.synchronized(false)
  fake.offset('-1d')
  gw = await start()
  await until(async () => (await status()).clock.synchronized === false, 'the clock reported unsynchronised', 20_000)
  const behind = (await status()).clock
  t.ok(behind.behind, 'the status says the clock started behind the times already written')
  t.ok(behind.behind.behindMs > dayMs - 120_000 && behind.behind.behindMs <= dayMs + 5_000, `behind by ${behind.behind?.behindMs} ms`)
  t.equal(behind.ordersOnUnsureClock, 0, 'the orders were taken on a clock known right')
  const cli = await runCli(['status'], { GATEWAY_DATA_DIR: dataDir })
  t.match(cli.stdout, /clock: NOT synchronised \(timedatectl\); started 2\dh \d+m \d+s behind the times already written/, '`gateway status` says so')
  t.match(gw.output(), /the system clock is behind the times the gateway already wrote/)

  // Before network time answers: waiting times go on from the high-water mark, never below
  // zero nor a day off; they miss the time the box was off and, at most, the minute before
  // the cut since the mark was last noted (docs/api.md, "Clock").
  for (const order of await orders()) {
    const earlier = beforeCut.find((o) => o.uuid === order.uuid)
    t.ok(
      order.elapsedTime >= Math.max(0, earlier.elapsedTime - 60) && order.elapsedTime < 300,
      `order ${order.name}: waited ${order.elapsedTime} s on the wrong clock (was ${earlier.elapsedTime} s)`,
    )
  }
  // Order 2 is cleared and order 3 created while the clock is a day behind.
  t.match(await api('DELETE', '/api/v2/activeorders/2'), { status: 200 })
  const clearedAt = new Map<number, number>([[2, Date.now()]])
  createdAt.set(3, Date.now())
  t.match(await api('POST', '/api/v2/activeorders', { name: 3, orderType: 'TO_GO' }), { status: 200 })
  await until(async () => (await orders()).find((order) => Number(order.name) === 3)?.elapsedTime >= 2, 'order 3 two seconds old', 30_000)

  // Network time answers: the clock steps forward a day and is synchronised.
  fake.offset('+0')
  fake.synchronized(true)
  await until(
    async () => {
      const clock = (await status()).clock
      return clock.synchronized === true && clock.lastJump !== null && clock.behind === null
    },
    'the step mended',
    30_000,
  )
  const stepped = await status()
  t.ok(
    Math.abs(stepped.clock.lastJump.shiftMs) < 300_000,
    `only the new run's clock moved, and by what it was behind the mark (${stepped.clock.lastJump.shiftMs} ms)`,
  )
  t.ok(Math.abs(at(stepped.currentTime, stepped.utcOffset) - Date.now()) < 60_000, 'the gateway tells the right time')

  // Every order's waiting time is what it truly waited; none is dated tomorrow.
  for (const order of await orders()) {
    const truly = (Date.now() - createdAt.get(Number(order.name))!) / 1000
    t.ok(Math.abs(order.elapsedTime - truly) <= 15, `order ${order.name}: waited ${order.elapsedTime} s, truly ${Math.round(truly)} s`)
    t.ok(
      Math.abs(at(order.created, stepped.utcOffset) - createdAt.get(Number(order.name))!) < 15_000,
      `order ${order.name}: created ${order.created}, when it was`,
    )
  }

  // Cleared: every history row ends after it starts and lasts what the order waited.
  for (const name of [1, 3]) {
    t.match(await api('DELETE', `/api/v2/activeorders/${name}`), { status: 200 })
    clearedAt.set(name, Date.now())
  }
  const history = (await api('GET', '/api/v2/orders')).items as any[]
  t.equal(history.length, 3)
  let totalSeconds = 0
  for (const row of history) {
    const started = Date.parse(row.orderStarted)
    const cleared = Date.parse(row.orderCleared)
    const truly = (clearedAt.get(Number(row.name))! - createdAt.get(Number(row.name))!) / 1000
    totalSeconds += (cleared - started) / 1000
    t.ok(cleared >= started, `history ${row.name}: ${row.orderStarted} to ${row.orderCleared}`)
    t.ok(Math.abs((cleared - started) / 1000 - truly) <= 15, `history ${row.name}: ${(cleared - started) / 1000} s, truly ${truly} s`)
    t.ok(Math.abs(cleared - clearedAt.get(Number(row.name))!) < 15_000, `history ${row.name}: cleared when it was`)
  }
  const statistics = (await api('GET', '/api/v2/statistics')).statistics
  t.equal(statistics.ordersToday, 3)
  t.ok(
    statistics.averageSeconds >= 0 && Math.abs(statistics.averageSeconds - totalSeconds / 3) <= 1,
    `average ${statistics.averageSeconds} s, the rows say ${totalSeconds / 3} s`,
  )
  t.equal(statistics.exceededToday, 0)

  // The rows leave and come back: export, then import into a fresh data dir.
  const exported = await runCli(['history', 'export'], { GATEWAY_DATA_DIR: dataDir })
  t.equal(exported.code, 0, exported.stderr)
  t.equal(exported.stdout.trim().split('\n').length, 3)
  const file = path.join(dir, 'history.ndjson')
  writeFileSync(file, exported.stdout)
  const imported = await runCli(['history', 'import', file], { GATEWAY_DATA_DIR: path.join(dir, 'restored') })
  t.equal(imported.code, 0, `import accepted every row: ${imported.stdout}${imported.stderr}`)
})
