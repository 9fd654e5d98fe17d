// The bump bar never acts on nothing: long random key sequences (fast-check) in real Chromium
// against a model of what each key should do, with orders created, paged and cleared from
// the API between the keys. After every step the selection is on the card the model expects
// (the next one after a bump, or after its card was cleared anywhere), the focus is on it,
// and a key that cannot act shows a notice. The page's clock is Playwright's fake one, so the
// 5 s undo window passes only when a step says so and the model knows which clears went out.
// BUMP_SEED=<seed> BUMP_PATH=<path> reproduces a failure; BUMP_RUNS sets the number of runs.
// npm test runs one fixed seed (a verdict that does not change from run to run);
// BUMP_SEED=random draws a new one, for longer runs that look for new failures.
import t from 'tap'
import fc from 'fast-check'
import type { Page } from 'playwright-core'
import { apiClient, firstToken, gatewayOn, launchBrowser, watchErrors } from '../helpers/browser.ts'
import { generousMs } from '../helpers/until.ts'

const browser = await launchBrowser(t)
const dataDir = t.testdir()
const gateway = await gatewayOn(dataDir, 0, { trackers: 60 })
t.teardown(() => gateway.stop())
const base = `http://127.0.0.1:${gateway.port}`
const token = await firstToken(gateway, dataDir)
const api = apiClient(base, token)

interface Card {
  uuid: string
  name: string
  callout: string
  pending: boolean
  paged: boolean
  located: boolean
}
interface Seen {
  cards: Card[]
  selected: string[]
  focused: string | null
  columns: number
  /** How many times a notice was shown since the page loaded. */
  notices: number
  busy: boolean
}

type Step =
  | { kind: 'key'; key: string }
  | { kind: 'search'; pick: number; missing: boolean }
  | { kind: 'create'; name: number; table: number | null }
  | { kind: 'clear-elsewhere'; pick: number }
  | { kind: 'page-elsewhere'; pick: number }
  | { kind: 'undo-window-ends' }

const keys = ['1', '2', '3', '5', '9', '0', 'ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End', 'b', 'b', 'b', 'Delete', 'p', 'p', 'u', 'Enter']
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(...keys).map((key) => ({ kind: 'key' as const, key })) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('search' as const), pick: fc.nat(20), missing: fc.boolean() }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      name: fc.integer({ min: 1, max: 40 }),
      table: fc.option(fc.integer({ min: 1, max: 8 }), { nil: null }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('clear-elsewhere' as const), pick: fc.nat(20) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('page-elsewhere' as const), pick: fc.nat(20) }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'undo-window-ends' as const }) },
)

/** What the board shows now (read in the page). */
function look(page: Page): Promise<Seen> {
  return page.evaluate(() => {
    const cards = [...document.querySelectorAll<HTMLElement>('#cards .card')]
    return {
      cards: cards.map((card) => ({
        uuid: card.dataset.uuid!,
        name: card.dataset.order!,
        callout: card.dataset.callout!,
        pending: card.dataset.pending === 'true',
        paged: card.dataset.paged === 'true',
        located: card.dataset.state === 'located',
      })),
      selected: cards.filter((card) => card.dataset.selected === 'true').map((card) => card.dataset.uuid!),
      focused: (document.activeElement?.closest('#cards .card') as HTMLElement | null)?.dataset.uuid ?? null,
      columns: Number(/repeat\((\d+)/.exec(document.getElementById('cards')!.style.gridTemplateColumns)?.[1] ?? 1),
      notices: (window as unknown as { keyNotices: number }).keyNotices,
      busy: cards.some((card) => card.dataset.busy === 'true'),
    }
  })
}

/**
 * Waits until `check` holds for what the board shows; the last look when it never does. The
 * limit only ends a wait that will never succeed (a busy machine delayed a clear's frame past
 * the 5 s this had, issue 47): the model's verdict is what the board settles on.
 */
async function settle(page: Page, check: (seen: Seen) => string | null, what: string): Promise<Seen> {
  const deadline = Date.now() + generousMs
  let seen = await look(page)
  let problem = check(seen)
  while (problem !== null || seen.busy) {
    if (Date.now() > deadline) throw new Error(`${what}: ${problem ?? 'a request still running'}\nboard: ${JSON.stringify(seen)}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
    seen = await look(page)
    problem = check(seen)
  }
  return seen
}

/** The selection the model expects, and whether a notice must show (or must not). */
interface Expectation {
  selected: string | null
  notice: boolean
  /** Further conditions: the card states the step leads to. */
  also?: (seen: Seen) => string | null
  /** The card this step starts clearing, or whose clear it takes back. */
  bumps?: string
  undoes?: string
  /** A notice may or may not show. */
  mayTell?: boolean
}

/** The model of one key on the board as last seen; `bumped`: this screen's clears still in their window, oldest first. */
function expectKey(key: string, seen: Seen, bumped: string[]): Expectation {
  const cards = seen.cards
  const selected = seen.selected[0] ?? null
  const index = cards.findIndex((card) => card.uuid === selected)
  const card = cards[index]
  const stay = (notice: boolean): Expectation => ({ selected, notice })
  const moveTo = (to: number): Expectation => (to >= 0 && to < cards.length ? { selected: cards[to]!.uuid, notice: false } : stay(true))
  if (/^[0-9]$/.test(key)) return moveTo((key === '0' ? 10 : Number(key)) - 1)
  switch (key) {
    case 'ArrowRight':
      return moveTo(index + 1)
    case 'ArrowLeft':
      return moveTo(index - 1)
    case 'ArrowDown':
      return moveTo(index + seen.columns)
    case 'ArrowUp':
      return moveTo(index - seen.columns)
    case 'Home':
      return moveTo(0)
    case 'End':
      return moveTo(cards.length - 1)
    case 'b':
    case 'Delete':
      return bump(seen, card)
    case 'p':
      return page(seen, card)
    case 'Enter':
      if (!card) return stay(true)
      if (card.pending)
        return {
          selected,
          notice: false,
          undoes: card.uuid,
          also: (now) => (now.cards.find((c) => c.uuid === card.uuid)?.pending === false ? null : 'Enter did not undo the clear'),
        }
      return card.paged || card.located ? bump(seen, card) : page(seen, card)
    case 'u':
      return undo(seen, bumped)
  }
  throw new Error(`no model for ${key}`)
}

function bump(seen: Seen, card: Card | undefined): Expectation {
  const selected = seen.selected[0] ?? null
  if (!card || card.pending) return { selected, notice: true }
  const at = seen.cards.indexOf(card)
  const waiting = (other: Card) => other !== card && !other.pending
  const next = seen.cards.slice(at + 1).find(waiting) ?? seen.cards.slice(0, at).reverse().find(waiting) ?? card
  return {
    selected: next.uuid,
    notice: false,
    bumps: card.uuid,
    also: (now) => (now.cards.find((c) => c.uuid === card.uuid)?.pending ? null : `${card.name} not being cleared`),
  }
}

function page(seen: Seen, card: Card | undefined): Expectation {
  const selected = seen.selected[0] ?? null
  if (!card || card.pending || card.paged) return { selected, notice: true }
  return { selected, notice: false, also: (now) => (now.cards.find((c) => c.uuid === card.uuid)?.paged ? null : `${card.name} not paged`) }
}

/** u: the newest clear still in its window comes back, selected; else a recall (or a notice saying why not). */
function undo(seen: Seen, bumped: string[]): Expectation {
  const newest = [...bumped].reverse().find((uuid) => seen.cards.some((card) => card.uuid === uuid && card.pending))
  if (newest)
    return {
      selected: newest,
      notice: false,
      undoes: newest,
      also: (now) => (now.cards.find((c) => c.uuid === newest)?.pending === false ? null : 'the clear was not undone'),
    }
  // A recall (a new card) or a notice: either is an answer the screen shows.
  const count = seen.cards.length
  return {
    selected: seen.selected[0] ?? null,
    notice: false,
    mayTell: true,
    also: (now) => (now.cards.length === count + 1 || now.notices > seen.notices ? null : 'u neither recalled nor said why not'),
  }
}

/** The selection after the card `gone` left the board last seen as `seen`. */
function afterLeaving(seen: Seen, gone: Set<string>): string | null {
  const selected = seen.selected[0] ?? null
  const staying = seen.cards.filter((card) => !gone.has(card.uuid))
  if (selected === null || !gone.has(selected)) return selected ?? staying[0]?.uuid ?? null
  const at = seen.cards.findIndex((card) => card.uuid === selected)
  const next =
    seen.cards.slice(at + 1).find((card) => !gone.has(card.uuid)) ??
    seen.cards
      .slice(0, at)
      .reverse()
      .find((card) => !gone.has(card.uuid))
  return next?.uuid ?? null
}

function checkSelection(expected: Expectation, notices: number) {
  return (seen: Seen): string | null => {
    if (seen.cards.length && seen.selected.length !== 1) return `${seen.selected.length} cards selected`
    const selected = seen.selected[0] ?? null
    if (selected !== expected.selected && !(expected.selected === null && selected === seen.cards[0]?.uuid))
      return `selected ${name(seen, selected)}, expected ${name(seen, expected.selected)}`
    if (selected !== null && seen.focused !== selected)
      return `the focus is on ${seen.focused === null ? 'the page, not a card' : name(seen, seen.focused)}, not the selected card`
    if (expected.notice && seen.notices === notices) return 'no notice for a key that could not act'
    if (!expected.notice && !expected.mayTell && seen.notices !== notices) return 'a notice for a key that acted'
    return expected.also?.(seen) ?? null
  }
}

/**
 * A new order is settled on the board once it shows where it is: placed at a table, its card
 * heads that table. The card appears first with its order number, the placement follows in
 * its own frame; a model that read the board between the two expected a search for the order
 * number to find the card the board by then headed with its table (seed 883239263: "selected
 * order 25, expected order 22", or a notice after a search that matched the only card).
 */
function shownAsStarted(name: number, table: number | null) {
  return (now: Seen): string | null => {
    const card = now.cards.find((c) => c.name === String(name))
    if (!card) return `the new order ${name} is not shown`
    if (table !== null && card.callout !== String(table)) return `the new order ${name} does not show its table ${table} yet`
    return null
  }
}

const name = (seen: Seen, uuid: string | null) =>
  uuid === null ? 'nothing' : `order ${seen.cards.find((card) => card.uuid === uuid)?.name ?? `${uuid} (gone)`}`

/** A guest handed tracker `name` at a starter (to go when odd and without a table), then on `table`. */
async function start(name: number, table: number | null) {
  const started = await api('POST', '/api/v2/simulator/start', { tracker: name, toGo: table === null && name % 2 === 1 })
  if (started.status !== 200) throw new Error(`simulator start ${name}: ${JSON.stringify(started.body)}`)
  if (table !== null) await api('POST', '/api/v2/simulator/place', { tracker: name, table })
}

async function runSteps(page: Page, steps: Step[]): Promise<number> {
  await page.reload()
  await page.locator('body[data-connection="live"]').waitFor()
  await api('DELETE', '/api/v2/activeorders')
  for (const [name, table] of [
    [1, 3],
    [2, null],
    [3, 5],
    [4, null],
    [5, 3],
  ] as const)
    await start(name, table)
  await settle(page, (seen) => (seen.cards.length === 5 ? null : 'five cards'), 'start')
  await page.keyboard.press('1')
  let seen = await settle(page, (now) => (now.focused && now.selected[0] === now.focused ? null : 'first card selected'), 'start')
  /** This screen's clears in their undo window, oldest first. */
  let bumped: string[] = []
  let done = 0
  for (const [at, next] of steps.entries()) {
    const what = `step ${at} ${JSON.stringify(next)}`
    let expected: Expectation
    if (next.kind === 'key') {
      expected = expectKey(next.key, seen, bumped)
      await page.keyboard.press(next.key)
      if (expected.bumps) bumped.push(expected.bumps)
      if (expected.undoes) bumped = bumped.filter((uuid) => uuid !== expected.undoes)
    } else if (next.kind === 'search') {
      const shown = [...new Set(seen.cards.map((card) => card.callout))]
      const number = next.missing || !shown.length ? '99' : shown[next.pick % shown.length]!
      const matches = seen.cards.filter((card) => card.callout === number)
      const at = matches.findIndex((card) => card.uuid === seen.selected[0])
      expected = matches.length ? { selected: matches[(at + 1) % matches.length]!.uuid, notice: false } : { selected: seen.selected[0] ?? null, notice: true }
      for (const key of ['n', ...number, 'Enter']) await page.keyboard.press(key)
    } else if (next.kind === 'create') {
      if (seen.cards.length >= 10 || seen.cards.some((card) => card.name === String(next.name))) continue
      await start(next.name, next.table)
      expected = { selected: seen.selected[0] ?? null, notice: false, also: shownAsStarted(next.name, next.table) }
    } else if (next.kind === 'clear-elsewhere') {
      const card = seen.cards[next.pick % Math.max(1, seen.cards.length)]
      if (!card) continue
      const cleared = await api('DELETE', `/api/v2/activeorders/${card.uuid}`)
      if (cleared.status !== 200) throw new Error(`${what}: clearing order ${card.name} answered ${JSON.stringify(cleared)}`)
      bumped = bumped.filter((uuid) => uuid !== card.uuid)
      expected = {
        selected: afterLeaving(seen, new Set([card.uuid])),
        notice: false,
        also: (now) => (now.cards.some((c) => c.uuid === card.uuid) ? `order ${card.name} still shown` : null),
      }
    } else if (next.kind === 'page-elsewhere') {
      const card = seen.cards[next.pick % Math.max(1, seen.cards.length)]
      if (!card || card.pending || card.paged) continue
      await api('POST', `/api/v2/activeorders/${card.uuid}/page`, { tracking: true })
      expected = {
        selected: seen.selected[0] ?? null,
        notice: false,
        also: (now) => (now.cards.find((c) => c.uuid === card.uuid)?.paged ? null : `order ${card.name} not shown paged`),
      }
    } else {
      const gone = new Set(seen.cards.filter((card) => card.pending).map((card) => card.uuid))
      await page.clock.runFor(5_100)
      bumped = []
      expected = {
        selected: afterLeaving(seen, gone),
        notice: false,
        also: (now) => (now.cards.some((card) => gone.has(card.uuid)) ? 'a clear past its undo window is still shown' : null),
      }
    }
    seen = await settle(page, checkSelection(expected, seen.notices), what)
    done += 1
  }
  return done
}

t.test('random key sequences with orders changing from the API: the selection is never lost', async (t) => {
  const context = await browser.newContext({ viewport: { width: 1920, height: 1080 } })
  t.teardown(() => context.close())
  await context.addInitScript((value) => localStorage.setItem('trackerGateway.accessToken', value), token)
  // Counts the notices shown (web/app.js, say), so a step can tell whether one was.
  await context.addInitScript(() => {
    const counter = window as unknown as { keyNotices: number }
    counter.keyNotices = 0
    document.addEventListener('DOMContentLoaded', () => {
      const notice = document.getElementById('key-notice')!
      new MutationObserver(() => {
        if (!notice.hidden) counter.keyNotices += 1
      }).observe(notice, { attributes: true, childList: true, characterData: true, subtree: true })
    })
  })
  const page = await context.newPage()
  const errors = watchErrors(page)
  await page.clock.install()
  await page.goto(`${base}/`)
  await page.locator('body[data-connection="live"]').waitFor()
  // From here the page's time moves only when a step says (installed, it follows the real one).
  await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 3000)

  const fixedSeed = 879680138 // 1,609 steps clean in a 600 s run
  const seed = process.env.BUMP_SEED === 'random' ? Date.now() % 2 ** 31 : Number(process.env.BUMP_SEED ?? fixedSeed)
  const runs = Number(process.env.BUMP_RUNS ?? 40)
  // Bounded in time: as many runs as fit (a loaded machine runs fewer; each counts). npm test
  // gives it 20 s (about 270 steps idle); BUMP_SECONDS=600 for a search.
  const seconds = Number(process.env.BUMP_SECONDS ?? 20)
  t.comment(`seed ${seed} (BUMP_SEED=${seed} reproduces it)`)
  let steps = 0
  const started = Date.now()
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 80, maxLength: 160 }), async (sequence) => {
      steps += await runSteps(page, sequence)
    }),
    {
      seed,
      numRuns: runs,
      endOnFailure: true,
      interruptAfterTimeLimit: seconds * 1000,
      markInterruptAsFailure: false,
      ...(process.env.BUMP_PATH ? { path: process.env.BUMP_PATH } : {}),
    },
  )
  t.comment(`${steps} steps, ${Math.round((Date.now() - started) / 1000)} s`)
  t.ok(steps >= 40, `${steps} steps taken`)
  t.same(errors, [], 'no console errors')
})
