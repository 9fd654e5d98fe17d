// The board's browser tests: one headless Chromium (any installed Chrome or Chromium, found by
// tests/helpers/system-deps.ts, driven by playwright-core) per
// test file, a fresh context (own storage) per screen, and a real gateway on a loopback port
// with the simulated radio. Screenshots go to test-artifacts/.
import { mkdirSync } from 'node:fs'
import path from 'node:path'
import { chromium, type Browser, type BrowserContext, type Page, type Response } from 'playwright-core'
import type { Test } from 'tap'
import { SystemClock, type Clock } from '../../lib/kernel/clock.ts'
import { parseConfig } from '../../lib/config.ts'
import { memoryLogger } from './memory-logger.ts'
import { sendControl } from '../../runtime/control/control.ts'
import type { RunningGateway } from '../../runtime/wiring/main.ts'
import { startCheckedGateway } from './checked-gateway.ts'
import { chromiumDep, requireExecutable } from './system-deps.ts'
import { generousMs } from './until.ts'
import { documentProblem, gatewayApi } from './documented-responses.ts'

export const artifacts = path.resolve(import.meta.dirname, '../../test-artifacts')

/** One headless browser for a test file; `args` adds Chromium flags (e.g. --host-resolver-rules). */
export async function launchBrowser(t: Test, args: string[] = []): Promise<Browser> {
  const chromiumPath = requireExecutable(chromiumDep)
  mkdirSync(artifacts, { recursive: true })
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', ...args],
  })
  t.teardown(() => browser.close())
  // Every context waits with the tests' generous limit (tests/helpers/until.ts) unless a call
  // says otherwise: a wait follows the page (an element appears, a text changes), and on a
  // busy machine a browser and a gateway take many times what they take on an idle one.
  // Every answer the pages get from a gateway's API is held to its OpenAPI document too.
  const heldToTheDocument = (context: BrowserContext) => {
    context.setDefaultTimeout(generousMs)
    context.on('response', (response) => void checkAnswer(t, response))
    return context
  }
  const newContext = browser.newContext.bind(browser)
  browser.newContext = async (options) => heldToTheDocument(await newContext(options))
  const newPage = browser.newPage.bind(browser)
  browser.newPage = async (options) => {
    const page = await newPage(options)
    heldToTheDocument(page.context())
    return page
  }
  return browser
}

/**
 * A page's answer from a gateway's v1 or v2 API checked against the gateway's document
 * (tests/helpers/documented-responses.ts), one from headquarters' API (/api/hq, the HQ board)
 * against HQ's (./hq-documented.ts, loaded only then). A CORS preflight is the host's, not an operation.
 */
async function checkAnswer(t: Test, response: Response): Promise<void> {
  const request = response.request()
  const { pathname } = new URL(response.url())
  const hq = /^\/api\/hq(\/|$)/.test(pathname)
  if (!(hq || /^\/api\/v[12](\/|$)/.test(pathname)) || request.method() === 'OPTIONS') return
  let body: string
  let headers: Record<string, string>
  try {
    body = await response.text()
    // All the headers as they came off the wire: headers() may give the provisional ones only
    // (a form's answer loaded into a frame came without its content type, now and then).
    headers = await response.allHeaders()
  } catch {
    return // the page went away (navigated, closed) before the body was read
  }
  const api = hq ? (await import('./hq-documented.ts')).hqDescribedApi : gatewayApi
  const problem = documentProblem(
    {
      method: request.method(),
      path: pathname,
      status: response.status(),
      contentType: headers['content-type'] ?? null,
      body,
    },
    api,
  )
  if (problem) t.fail(`the board got an answer outside the ${api.name}'s document: ${problem}`)
}

export async function gatewayOn(dataDir: string, port = 0, radio: Record<string, unknown> = {}, clock?: Clock): Promise<RunningGateway> {
  const config = parseConfig({ port, host: '127.0.0.1', dataDir, radio: { kind: 'simulated', ...radio }, mdns: { enabled: false } })
  return startCheckedGateway({ config, log: memoryLogger('warn').log, clock })
}

/** The real clock, set back by `offset` ms while orders are created, so they have an age. */
export class ShiftedClock extends SystemClock {
  offset = 0

  override now(): number {
    return Date.now() + this.offset
  }
}

/** The first token, the way a person gets it: a button press, then generate within the window. */
export async function firstToken(gateway: RunningGateway, dataDir: string, name = 'board'): Promise<string> {
  await sendControl(dataDir, 'button.press')
  const response = await fetch(`http://127.0.0.1:${gateway.port}/api/v2/accesstoken/generate?name=${name}`)
  const body = (await response.json()) as { token?: { token?: string } }
  if (response.status !== 201 || !body.token?.token) throw new Error(`no token: ${JSON.stringify(body)}`)
  return body.token.token
}

/** Collects console errors and uncaught exceptions of a page. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text())
  })
  page.on('pageerror', (error) => errors.push(error.message))
  return errors
}

export interface Screen {
  context: BrowserContext
  page: Page
  errors: string[]
}

/** A new screen (own storage) already signed in with `token`, the feed live. */
export async function openBoard(t: Test, browser: Browser, base: string, token: string, viewport = { width: 1280, height: 800 }): Promise<Screen> {
  const context = await browser.newContext({ viewport })
  t.teardown(() => context.close())
  await context.addInitScript((value) => localStorage.setItem('trackerGateway.accessToken', value), token)
  const page = await context.newPage()
  const errors = watchErrors(page)
  await page.goto(`${base}/`)
  await page.locator('body[data-connection="live"]').waitFor()
  return { context, page, errors }
}

/** A v2 API call with the token; answers status and JSON body. */
export function apiClient(base: string, token: string) {
  return async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`${base}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return { status: response.status, body: (await response.json()) as any }
  }
}

/** A browser test file's gateway: simulated radio with 60 trackers on a shiftable clock, its first (admin) token and an API client. */
export async function boardGateway(t: Test) {
  const dataDir = t.testdir()
  const clock = new ShiftedClock()
  const gateway = await gatewayOn(dataDir, 0, { trackers: 60 }, clock)
  t.teardown(() => gateway.stop())
  const base = `http://127.0.0.1:${gateway.port}`
  const token = await firstToken(gateway, dataDir)
  return { dataDir, clock, gateway, base, token, api: apiClient(base, token) }
}
