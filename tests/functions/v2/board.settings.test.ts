import t from 'tap'
import { testGateway } from '../../helpers/gateway.ts'

async function setup() {
  const gw = await testGateway({}, '2026-11-22T12:00:00Z')
  const issue = async (name: string, scope: 'read' | 'screen' | 'admin') => (await gw.services.tokens.issue(name, scope)).token
  return { gw, wall: await issue('wall', 'screen'), manager: await issue('manager', 'admin'), display: await issue('lobby', 'read') }
}

t.test('a screen reads and changes its own settings, kept by its token name (code 26)', async (t) => {
  const { gw, wall } = await setup()
  const fresh = await gw.json('GET /api/v2/board/settings', { token: wall })
  t.same(fresh.body, { status: 200, returnCode: 26, screen: { name: 'wall', settings: {} } }, 'nothing set: no keys')
  const set = await gw.json('POST /api/v2/board/settings', { token: wall, body: { theme: 'light', filter: 'to-go', hours: '12', language: 'de' } })
  t.equal(set.status, 200)
  t.same(set.body.screen, { name: 'wall', settings: { theme: 'light', filter: 'to-go', hours: '12', language: 'de' } })
  const more = await gw.json('POST /api/v2/board/settings', {
    token: wall,
    body: { density: 'compact', reminderSeconds: 30, offlineAlarmSeconds: 0, sound: true, theme: 'dark' },
  })
  t.same(
    more.body.screen.settings,
    { theme: 'dark', filter: 'to-go', hours: '12', language: 'de', density: 'compact', reminderSeconds: 30, offlineAlarmSeconds: 0, sound: true },
    'the keys given change, the others stay',
  )
  // Another browser signed in with a token of the same name (a screen paired again) sees them.
  const again = (await gw.services.tokens.issue('wall', 'screen')).token
  t.same((await gw.json('GET /api/v2/board/settings', { token: again })).body.screen.settings, more.body.screen.settings)
})

t.test("a screen's filter may name an area of the floor plan", async (t) => {
  const { gw, wall } = await setup()
  const set = await gw.json('POST /api/v2/board/settings', { token: wall, body: { filter: 'area:Terrace' } })
  t.same(set.body.screen.settings, { filter: 'area:Terrace' })
  t.same((await gw.json('GET /api/v2/board/settings', { token: wall })).body.screen.settings, { filter: 'area:Terrace' })
})

t.test('bad settings change nothing: -20 for an unknown key, -21 for a bad value, -31 for bad JSON', async (t) => {
  const { gw, wall } = await setup()
  await gw.json('POST /api/v2/board/settings', { token: wall, body: { theme: 'light' } })
  const cases: [unknown, number][] = [
    [{ colour: 'red' }, -20],
    [{ theme: 'light', volume: 3 }, -20],
    [{ theme: 'pink' }, -21],
    [{ filter: 'late' }, -21],
    [{ filter: 'table:Terrace' }, -21],
    [{ filter: 'area:' }, -21],
    [{ filter: 'area: Terrace' }, -21],
    [{ filter: `area:${'x'.repeat(25)}` }, -21],
    [{ reminderSeconds: 45 }, -21],
    [{ offlineAlarmSeconds: -1 }, -21],
    [{ sound: 'yes' }, -21],
    [{ language: 'fr' }, -21],
    [{ hours: 12 }, -21],
    [['theme'], -31],
  ]
  for (const [body, code] of cases) {
    const { status, body: answer } = await gw.json('POST /api/v2/board/settings', { token: wall, body })
    t.equal(status, 400, JSON.stringify(body))
    t.equal(answer.returnCode, code, JSON.stringify(body))
  }
  const malformed = await gw.json('POST /api/v2/board/settings', { token: wall, rawBody: '{"theme":', headers: { 'content-type': 'application/json' } })
  t.equal(malformed.body.returnCode, -31)
  t.same((await gw.json('GET /api/v2/board/settings', { token: wall })).body.screen.settings, { theme: 'light' }, 'unchanged')
})

t.test('scopes: a read display reads its own; only an admin lists screens and sets another screen', async (t) => {
  const { gw, wall, manager, display } = await setup()
  t.equal((await gw.json('GET /api/v2/board/settings', { token: display })).status, 200, 'read: its own settings')
  t.equal((await gw.json('POST /api/v2/board/settings', { token: display, body: { theme: 'light' } })).status, 403, 'read: may not change them')
  t.equal((await gw.json('GET /api/v2/board/screens', { token: wall })).status, 403)
  t.equal((await gw.json('POST /api/v2/board/screens/lobby', { token: wall, body: { theme: 'light' } })).status, 403)

  const set = await gw.json('POST /api/v2/board/screens/lobby', { token: manager, body: { theme: 'light', filter: 'dine-in' } })
  t.same(set.body, { status: 200, returnCode: 26, screen: { name: 'lobby', settings: { theme: 'light', filter: 'dine-in' } } })
  t.same(
    (await gw.json('GET /api/v2/board/settings', { token: display })).body.screen.settings,
    { theme: 'light', filter: 'dine-in' },
    'the screen sees what the admin set',
  )
  const listed = await gw.json('GET /api/v2/board/screens', { token: manager })
  t.same(listed.body.screens, [
    { name: 'lobby', settings: { theme: 'light', filter: 'dine-in' } },
    { name: 'manager', settings: {} },
    { name: 'wall', settings: {} },
  ])
  const badName = await gw.json('POST /api/v2/board/screens/no%20spaces', { token: manager, body: { theme: 'light' } })
  t.equal(badName.body.returnCode, -4)
  const badValue = await gw.json('POST /api/v2/board/screens/lobby', { token: manager, body: { theme: 'dim' } })
  t.equal(badValue.body.returnCode, -21)
})

t.test('kept across a restart of the service (NeDB), unreadable keys dropped one by one', async (t) => {
  const { ScreenSettingsService, parseScreenSettings } = await import('../../../lib/settings/screen-settings.ts')
  let caught: unknown
  try {
    parseScreenSettings(null)
  } catch (error) {
    caught = error
  }
  t.equal((caught as { kind?: string }).kind, 'SETTINGS_VALUE_INVALID', 'not an object: -21')
  const { Store } = await import('../../../lib/store/db.ts')
  const dataDir = t.testdir()
  const store = new Store({ dataDir })
  const service = await ScreenSettingsService.open(await store.collection('screen-settings'))
  await service.update('wall', { theme: 'light', hours: '12' })
  const collection = await store.collection<{ screen: string; settings: Record<string, unknown> }>('screen-settings')
  await collection.insert({ screen: 'old', settings: { theme: 'sepia', language: 'es' } })
  await store.close()
  const reopened = await ScreenSettingsService.open(await new Store({ dataDir }).collection('screen-settings'))
  t.same(reopened.get('wall'), { theme: 'light', hours: '12' })
  t.same(reopened.get('old'), { language: 'es' }, 'a value this version cannot read is dropped, the rest kept')
})

t.test('changes that overlap (an admin sets the theme and at once the filter) are all kept, each on the one before', async (t) => {
  const { gw, wall, manager } = await setup()
  await gw.json('POST /api/v2/board/settings', { token: wall, body: { theme: 'light', filter: 'to-go', hours: '12' } })
  // Sent together: the second is read and merged while the first is still being written.
  const answers = await Promise.all([
    gw.json('POST /api/v2/board/screens/wall', { token: manager, body: { theme: 'dark' } }),
    gw.json('POST /api/v2/board/screens/wall', { token: manager, body: { filter: 'all' } }),
    gw.json('POST /api/v2/board/settings', { token: wall, body: { language: 'es' } }),
  ])
  t.same(
    answers.map((answer) => answer.status),
    [200, 200, 200],
  )
  const kept = { theme: 'dark', filter: 'all', hours: '12', language: 'es' }
  t.same((await gw.json('GET /api/v2/board/settings', { token: wall })).body.screen.settings, kept, 'none lost')
  t.same(answers[2]!.body.screen.settings, kept, 'each answer holds the changes made before it')
})

t.test('?only=missing sets only the keys not held: an admin change made since the screen read its settings is kept', async (t) => {
  const { gw, wall, manager } = await setup()
  // The board signing in: it reads its settings, none are there yet ...
  const read = await gw.json('GET /api/v2/board/settings', { token: wall })
  t.same(read.body.screen.settings, {})
  // ... an admin sets its theme and filter meanwhile ...
  await gw.json('POST /api/v2/board/screens/wall', { token: manager, body: { theme: 'light', filter: 'to-go' } })
  // ... and then the board sends up its browser's earlier choices.
  const sent = await gw.json('POST /api/v2/board/settings?only=missing', { token: wall, body: { theme: 'dark', sound: false, density: 'large' } })
  t.equal(sent.status, 200)
  t.same(sent.body.screen.settings, { theme: 'light', filter: 'to-go', sound: false, density: 'large' }, "the admin's keys stay, the missing ones are set")
  const plain = await gw.json('POST /api/v2/board/settings', { token: wall, body: { theme: 'dark' } })
  t.equal(plain.body.screen.settings.theme, 'dark', 'without only=missing the keys given change, as before')
})

t.test('?only= with another value is -21 and changes nothing', async (t) => {
  const { gw, wall } = await setup()
  await gw.json('POST /api/v2/board/settings', { token: wall, body: { theme: 'light' } })
  for (const query of ['only=all', 'only=', 'only=MISSING']) {
    const refused = await gw.json(`POST /api/v2/board/settings?${query}`, { token: wall, body: { theme: 'dark' } })
    t.equal(refused.status, 400, query)
    t.equal(refused.body.returnCode, -21, query)
  }
  t.same((await gw.json('GET /api/v2/board/settings', { token: wall })).body.screen.settings, { theme: 'light' })
})
