// Headless Debian Chromium driven by playwright-core, for the browser tests.
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromium, type BrowserContext } from 'playwright-core'
import type { Test } from 'tap'
import { sendControl } from '../../runtime/control.ts'

export const chromiumPath = '/usr/bin/chromium'
const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
]

/** A fresh browser profile, closed and deleted when the test ends; `args` adds flags. */
export async function launchBrowser(t: Test, args: string[] = []): Promise<BrowserContext> {
  if (!existsSync(chromiumPath)) throw new Error(`${chromiumPath} is missing: run scripts/ci-system-deps.sh (apt-get install chromium)`)
  const userDataDir = await mkdtemp(path.join(tmpdir(), 'board-chromium-'))
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath,
    headless: true,
    args: [...chromiumArgs, ...args],
    viewport: { width: 1280, height: 800 },
  })
  t.teardown(async () => {
    await context.close()
    await rm(userDataDir, { recursive: true, force: true })
  })
  return context
}

/** The first token, the way a person gets it: a button press, then generate within the window. */
export async function buttonToken(port: number, dataDir: string, name = 'board'): Promise<string> {
  await sendControl(dataDir, 'button.press')
  const response = await fetch(`http://127.0.0.1:${port}/api/v2/accesstoken/generate?name=${name}`)
  const body = (await response.json()) as { token?: { token?: string } }
  if (response.status !== 201 || !body.token?.token) throw new Error(`no token: ${JSON.stringify(body)}`)
  return body.token.token
}
