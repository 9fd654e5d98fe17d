// The board and a gateway without time: a real gateway process under libfaketime, 3 h
// behind, its system reporting the clock unsynchronised (a stand-in timedatectl). The board
// (Chromium, the right time) shows a notice and sets the gateway's clock from its device;
// an order's waiting time stays what it was. When the system clock is later stepped and
// synchronised, the gateway follows it and the notice goes.
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { sendControl } from '../../runtime/control/control.ts'
import { apiClient, launchBrowser, openBoard } from '../helpers/browser.ts'
import { fakeSystemClock } from '../helpers/faketime.ts'
import { startGatewayProcess } from '../helpers/process.ts'
import { until } from '../helpers/until.ts'

const browser = await launchBrowser(t)

t.test('the board shows an unsynchronised clock and sets the gateway clock from its device', async (t) => {
  const dir = t.testdir({})
  const dataDir = path.join(dir, 'data')
  const configFile = path.join(dir, 'gateway.config.json')
  writeFileSync(configFile, JSON.stringify({ host: '127.0.0.1', radio: { kind: 'simulated' }, mdns: { enabled: false }, clock: { syncCheckSeconds: 1 } }))
  const fake = fakeSystemClock(dir, '-3h', false)
  const gw = await startGatewayProcess(dataDir, { ...fake.env, GATEWAY_CONFIG: configFile })
  t.teardown(() => gw.stop())
  await sendControl(dataDir, 'button.press')
  const token: string = ((await (await fetch(`${gw.url}/api/v2/accesstoken/generate?name=board`)).json()) as any).token.token
  const api = apiClient(gw.url, token)
  const clock = async () => (await api('GET', '/api/v2/gateway')).body.gatewayStatus.clock
  await until(async () => (await clock()).synchronized === false, 'the clock reported unsynchronised', 15_000)
  await api('POST', '/api/v2/simulator/start', { tracker: 5 })
  await until(async () => (await api('GET', '/api/v2/activeorders')).body.items[0]?.elapsedTime >= 1, 'an order a second old', 15_000)

  const { page, errors } = await openBoard(t, browser, gw.url, token)
  const notice = page.locator('#clock-notice')
  await notice.waitFor({ state: 'visible', timeout: 10_000 })
  t.match(await notice.textContent(), /not synchronised/)

  await notice.locator('button').click()
  await page.locator('#clock-notice', { hasText: 'set from a board' }).waitFor({ timeout: 10_000 })
  const state = await clock()
  t.equal(state.lastJump.cause, 'board')
  t.ok(Math.abs(state.lastJump.shiftMs - 3 * 3_600_000) < 60_000, `the gateway clock moved by the board's ${state.lastJump.shiftMs} ms`)
  t.not(state.setFromBoardAt, null)
  const status = (await api('GET', '/api/v2/gateway')).body.gatewayStatus
  t.ok(Math.abs(Date.parse(`${status.currentTime}${status.utcOffset}`) - Date.now()) < 60_000, 'the gateway tells the right time')
  const order = (await api('GET', '/api/v2/activeorders')).body.items[0]
  t.ok(order.elapsedTime >= 1 && order.elapsedTime < 300, `the order waited ${order.elapsedTime} s, not hours`)

  // Refused for a synchronised clock: the system's time wins.
  fake.offset('+0')
  fake.synchronized(true)
  await until(async () => (await clock()).synchronized === true, 'the clock reported synchronised', 15_000)
  await until(async () => (await clock()).setFromBoardAt === null, 'the gateway follows the system clock again', 15_000)
  const refused = await api('POST', '/api/v2/gateway/clock', { time: Date.now() })
  t.match(refused, { status: 400, body: { returnCode: -21, message: /synchronised/ } })
  const statusRead = page.waitForResponse((response) => response.url().endsWith('/api/v2/gateway'))
  await page.reload()
  await statusRead
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 100)))
  t.ok(await notice.isHidden(), 'no notice for a synchronised clock')
  t.same(errors, [])
})

t.test('the board tells of a clock that started behind the times already written (issue 40)', async (t) => {
  const dir = t.testdir({})
  const dataDir = path.join(dir, 'data')
  const configFile = path.join(dir, 'gateway.config.json')
  writeFileSync(configFile, JSON.stringify({ host: '127.0.0.1', radio: { kind: 'simulated' }, mdns: { enabled: false }, clock: { syncCheckSeconds: 1 } }))
  // An earlier run noted the time on a right clock; the box is back a day behind it.
  mkdirSync(dataDir, { recursive: true })
  writeFileSync(path.join(dataDir, 'clock-runs.json'), JSON.stringify({ highWater: Date.now(), unsureRuns: [] }))
  const fake = fakeSystemClock(dir, '-1d', false)
  const gw = await startGatewayProcess(dataDir, { ...fake.env, GATEWAY_CONFIG: configFile })
  t.teardown(() => gw.stop())
  await sendControl(dataDir, 'button.press')
  const token: string = ((await (await fetch(`${gw.url}/api/v2/accesstoken/generate?name=board`)).json()) as any).token.token
  const api = apiClient(gw.url, token)
  await until(async () => (await api('GET', '/api/v2/gateway')).body.gatewayStatus.clock.synchronized === false, 'the clock reported unsynchronised', 15_000)
  t.match((await api('GET', '/api/v2/gateway')).body.gatewayStatus.clock, { behind: { behindMs: Number } })

  const { page, errors } = await openBoard(t, browser, gw.url, token)
  const notice = page.locator('#clock-notice', { hasText: 'started behind the times it had already written' })
  await notice.waitFor({ state: 'visible', timeout: 10_000 })
  t.match(await notice.textContent(), /not synchronised/)
  t.same(errors, [])
})
