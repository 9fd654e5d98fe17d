import t from 'tap'
import { ManualClock } from '../../helpers/manual-clock.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { Store, storageError } from '../../../lib/store/db.ts'
import { ButtonWindow } from '../../../lib/tokens/button.ts'
import { TokenService, type TokenDoc } from '../../../lib/tokens/service.ts'
import { hashToken } from '../../../lib/tokens/secret.ts'

async function setup(options: { usageFlushMs?: number; store?: Store; clock?: ManualClock; maxTokens?: number } = {}) {
  const clock = options.clock ?? new ManualClock()
  const store = options.store ?? new Store()
  const collection = await store.collection<TokenDoc>('tokens')
  const revoked: { name: string; id: string }[] = []
  const button = new ButtonWindow(clock)
  const tokens = await TokenService.open({
    collection,
    clock,
    log: memoryLogger().log,
    button,
    authFailuresPerMinute: 5,
    usageFlushMs: options.usageFlushMs ?? 10_000,
    maxTokens: options.maxTokens,
  })
  tokens.on('revoked', (token) => revoked.push(token))
  return { clock, store, collection, tokens, button, revoked }
}

t.test('issued tokens are 48 lowercase hex and stored only as a SHA-256 hash', async (t) => {
  const { tokens, collection } = await setup()
  const { token, record } = await tokens.issue('pos')
  t.match(token, /^[0-9a-f]{48}$/)
  const docs = await collection.find({})
  t.equal(docs.length, 1)
  t.equal(docs[0].hash, hashToken(token).toString('hex'))
  t.equal(docs[0].prefix, token.slice(0, 6))
  t.notOk(JSON.stringify(docs).includes(token), 'the token itself is not stored')
  t.match(record, { name: 'pos', prefix: token.slice(0, 6), lastUsedAt: null, ipAddress: null })
})

t.test('every token is different', async (t) => {
  const { tokens } = await setup({ maxTokens: 200 })
  const seen = new Set<string>()
  for (let i = 0; i < 200; i++) seen.add((await tokens.issue('n')).token)
  t.equal(seen.size, 200)
})

t.test('verifyToken knows issued tokens and nothing else', async (t) => {
  const { tokens } = await setup()
  const a = await tokens.issue('a')
  const b = await tokens.issue('b')
  t.same(await tokens.verifyToken(a.token, '10.0.0.1'), { name: 'a', id: a.record.id, scope: 'admin' })
  t.same(await tokens.verifyToken(b.token, '10.0.0.1'), { name: 'b', id: b.record.id, scope: 'admin' })
  const flipped = a.token.slice(0, 47) + (a.token[47] === '0' ? '1' : '0')
  for (const wrong of [flipped, a.token.toUpperCase(), `${a.token}0`, '', 'x'.repeat(48), hashToken(a.token).toString('hex')]) {
    t.equal(await tokens.verifyToken(wrong, '10.0.0.1'), null, `refuses ${wrong.slice(0, 10)}…`)
  }
})

t.test('a failed verification counts against the address', async (t) => {
  const { tokens } = await setup()
  for (let i = 0; i < 5; i++) await tokens.verifyToken('0'.repeat(48), '10.0.0.7')
  t.ok(tokens.authFailures.retryAfter('10.0.0.7') > 0)
  t.equal(tokens.authFailures.retryAfter('10.0.0.8'), 0)
})

t.test('tokens survive a restart of the service (loaded from the store)', async (t) => {
  const store = new Store()
  const first = await setup({ store })
  const { token } = await first.tokens.issue('kds')
  const second = await setup({ store })
  t.match(await second.tokens.verifyToken(token, '10.0.0.1'), { name: 'kds' })
})

t.test('last use is kept in memory and written at most once per flush interval', async (t) => {
  const { tokens, collection, clock } = await setup({ usageFlushMs: 10_000 })
  const { token, record } = await tokens.issue('pos')
  let writes = 0
  const update = collection.update.bind(collection)
  collection.update = (...args: Parameters<typeof update>) => {
    writes++
    return update(...args)
  }
  for (let i = 0; i < 50; i++) {
    await clock.advance(100)
    await tokens.verifyToken(token, `10.0.0.${i % 3}`)
  }
  t.equal(writes, 0, 'no write per request')
  const seen = tokens.get(record.id)!
  t.equal(seen.lastUsedAt, clock.now(), 'the record shows the latest use at once')
  t.equal(seen.ipAddress, '10.0.0.1')
  t.equal((await collection.findOne({ _id: record.id }))!.lastUsedAt, null, 'not yet on disk')
  await clock.advance(5_099)
  t.equal(writes, 0, 'the interval runs from the first unwritten use')
  await clock.advance(1)
  t.equal(writes, 1, 'one write after the interval')
  t.match(await collection.findOne({ _id: record.id }), { lastUsedAt: seen.lastUsedAt, ipAddress: '10.0.0.1' })
  await clock.advance(60_000)
  t.equal(writes, 1, 'no writes while idle')
})

t.test('stop writes what is pending', async (t) => {
  const { tokens, collection, clock } = await setup({ usageFlushMs: 60_000 })
  const { token, record } = await tokens.issue('pos')
  await clock.advance(1000)
  await tokens.verifyToken(token, '192.168.1.20')
  await tokens.stop()
  t.match(await collection.findOne({ _id: record.id }), { lastUsedAt: clock.now(), ipAddress: '192.168.1.20' })
  t.equal(clock.pending, 0, 'no timer left behind')
})

t.test('a failed usage write is retried later', async (t) => {
  const { tokens, collection, clock } = await setup({ usageFlushMs: 1000 })
  const { token, record } = await tokens.issue('pos')
  const update = collection.update
  // What the collection throws on a full disk.
  collection.update = async () => {
    throw storageError(Object.assign(new Error('disk full'), { code: 'ENOSPC' }))
  }
  await tokens.verifyToken(token, '10.1.1.1')
  await clock.advance(1000)
  t.equal((await collection.findOne({ _id: record.id }))!.lastUsedAt, null)
  collection.update = update
  await clock.advance(1000)
  t.equal((await collection.findOne({ _id: record.id }))!.ipAddress, '10.1.1.1')
})

t.test('revocation takes effect at once and tells the listener', async (t) => {
  const { tokens, collection, revoked } = await setup()
  const a = await tokens.issue('a')
  const b = await tokens.issue('b')
  await tokens.verifyToken(a.token, '10.0.0.1')
  t.equal(await tokens.revoke(a.record.id), true)
  t.equal(await tokens.verifyToken(a.token, '10.0.0.1'), null)
  t.ok(await tokens.verifyToken(b.token, '10.0.0.1'), 'others keep working')
  t.equal(await collection.count({ _id: a.record.id }), 0)
  t.same(revoked, [{ name: 'a', id: a.record.id, scope: 'admin' }])
  t.equal(await tokens.revoke(a.record.id), false, 'twice is a no-op')
  await tokens.flushUsage()
  t.equal(await collection.count({}), 1, 'a pending use of a revoked token is not written back')
})

t.test('revokeByName removes every token of that name; none is -6', async (t) => {
  const { tokens } = await setup()
  await tokens.issue('kds')
  await tokens.issue('kds')
  const pos = await tokens.issue('pos')
  t.equal(await tokens.revokeByName('kds'), 2)
  t.same(
    tokens.list().map((r) => r.id),
    [pos.record.id],
  )
  await t.rejects(tokens.revokeByName('kds'), { name: 'DomainError', message: 'TOKEN_NOT_FOUND: kds' })
})

t.test('rename: by name (every such token) or else by prefix; stored, in force at once; none is -6', async (t) => {
  const { tokens, collection } = await setup()
  const a = await tokens.issue('board')
  const b = await tokens.issue('board')
  const renamed = await tokens.rename(a.record.prefix, 'bar')
  t.match(renamed, [{ id: a.record.id, name: 'bar' }])
  t.match(await tokens.verifyToken(a.token, '10.0.0.1'), { name: 'bar' })
  t.equal((await collection.findOne({ _id: b.record.id }))?.name, 'board', 'the other screen keeps its name')
  t.equal((await tokens.rename('board', 'kitchen')).length, 1)
  t.same((await collection.find({})).map((doc) => doc.name).sort(), ['bar', 'kitchen'], 'stored')
  await t.rejects(tokens.rename('board', 'x'), { message: 'TOKEN_NOT_FOUND: board' })
})

t.test('list is oldest first and never carries the token', async (t) => {
  const { tokens, clock } = await setup()
  const first = await tokens.issue('one')
  await clock.advance(1000)
  const second = await tokens.issue('two')
  const list = tokens.list()
  t.same(
    list.map((r) => r.name),
    ['one', 'two'],
  )
  const text = JSON.stringify(list)
  t.notOk(text.includes(first.token) || text.includes(second.token))
})

t.test('issueWithButton: only inside the window, only once', async (t) => {
  const { tokens, button, clock } = await setup()
  await t.rejects(tokens.issueWithButton('a'), { name: 'DomainError', message: 'BUTTON_WINDOW_CLOSED' })
  button.press()
  await clock.advance(60_000)
  t.ok(await tokens.issueWithButton('a'))
  await t.rejects(tokens.issueWithButton('b'), { name: 'DomainError', message: 'BUTTON_WINDOW_CLOSED' })
  button.press()
  t.ok(await tokens.issueWithButton('c'), 'a new press opens a new window')
})

t.test('at most maxTokens exist: minting more is refused (-50) and changes nothing; revoking makes room', async (t) => {
  const { tokens, collection, button } = await setup({ maxTokens: 3 })
  t.equal((await setup()).tokens.maxTokens, 100, 'a hundred by default')
  await tokens.issue('a')
  // Two at once for the last place: the one still being written counts already.
  const race = await Promise.allSettled([tokens.issue('b'), tokens.issue('c'), tokens.issue('d')])
  t.equal(race.filter((r) => r.status === 'fulfilled').length, 2)
  t.match(
    race.find((r) => r.status === 'rejected'),
    { reason: { kind: 'TOKEN_LIMIT_REACHED', detail: /at most 3/ } },
  )
  t.equal((await collection.find({})).length, 3)
  await t.rejects(tokens.issue('e'), { name: 'DomainError', kind: 'TOKEN_LIMIT_REACHED' } as never)
  button.press()
  await t.rejects(tokens.issueWithButton('f'), { name: 'DomainError', kind: 'TOKEN_LIMIT_REACHED' } as never)
  t.ok(button.isOpen(), 'a refused mint does not use the button window up')
  t.equal((await collection.find({})).length, 3, 'nothing written')
  await tokens.revokeByName('a')
  t.ok(await tokens.issueWithButton('f'), 'a revoked token makes room')
})

t.test('a token is found among many by its hash; a revoked one is not', async (t) => {
  const { tokens, store } = await setup()
  const issued = []
  for (let i = 0; i < 100; i++) issued.push(await tokens.issue(`kds${i}`))
  for (const { token, record } of [issued[0], issued[57], issued[99]]) {
    t.match(await tokens.verifyToken(token, '10.0.0.1'), { id: record.id })
  }
  t.equal(await tokens.verifyToken('f'.repeat(48), '10.0.0.1'), null)
  await tokens.revoke(issued[57].record.id)
  t.equal(await tokens.verifyToken(issued[57].token, '10.0.0.1'), null, 'revoked: gone from the index as well')
  // Loaded from the datastore, the index is rebuilt.
  const reopened = await setup({ store })
  t.match(await reopened.tokens.verifyToken(issued[99].token, '10.0.0.1'), { id: issued[99].record.id })
  t.ok(await reopened.tokens.issue('one-more'), '99 loaded: one more fits')
  await t.rejects(
    reopened.tokens.issue('two-more'),
    { name: 'DomainError', kind: 'TOKEN_LIMIT_REACHED' } as never,
    'then the loaded ones count against the cap',
  )
})

t.test('scopes: issued with one (admin by default), stored, verified with it; a token stored before scopes is admin', async (t) => {
  const { tokens, collection, store } = await setup()
  const wall = await tokens.issue('wall', 'screen')
  const office = await tokens.issue('office')
  t.equal(wall.record.scope, 'screen')
  t.equal(office.record.scope, 'admin', 'what the button flow gives: existing clients keep working')
  t.match(await tokens.verifyToken(wall.token, '10.0.0.1'), { name: 'wall', scope: 'screen' })
  // A record as an older gateway wrote it: no scope field.
  const old = 'c'.repeat(48)
  await collection.insert({ name: 'old-pos', hash: hashToken(old).toString('hex'), prefix: 'cccccc', createdAt: 0, lastUsedAt: null, ipAddress: null })
  const reopened = await setup({ store })
  t.match(await reopened.tokens.verifyToken(old, '10.0.0.1'), { name: 'old-pos', scope: 'admin' })
  t.match(await reopened.tokens.verifyToken(wall.token, '10.0.0.1'), { scope: 'screen' }, 'the scope survives a restart')
  t.same(
    reopened.tokens
      .list()
      .map((r) => [r.name, r.scope])
      .sort(),
    [
      ['office', 'admin'],
      ['old-pos', 'admin'],
      ['wall', 'screen'],
    ],
  )
})

t.test('narrow: by name or prefix, in force at once, stored; never widens, and a refusal changes nothing', async (t) => {
  const { tokens, store } = await setup()
  const till = await tokens.issue('till')
  const wall = await tokens.issue('wall', 'screen')
  t.match(await tokens.narrow('till', 'pos'), [{ name: 'till', scope: 'pos' }])
  t.match(await tokens.verifyToken(till.token, '10.0.0.1'), { scope: 'pos' }, 'the next request sees it')
  await t.rejects(tokens.narrow('till', 'admin'), { name: 'DomainError', kind: 'SCOPE_DENIED' } as never)
  await t.rejects(tokens.narrow(wall.record.prefix, 'pos'), { name: 'DomainError', kind: 'SCOPE_DENIED' } as never)
  await t.rejects(tokens.narrow('nobody', 'read'), { name: 'DomainError', kind: 'TOKEN_NOT_FOUND' } as never)
  t.match(await tokens.narrow(wall.record.prefix, 'read'), [{ name: 'wall', scope: 'read' }], 'by prefix')
  const reopened = await setup({ store })
  t.same(
    reopened.tokens
      .list()
      .map((r) => [r.name, r.scope])
      .sort(),
    [
      ['till', 'pos'],
      ['wall', 'read'],
    ],
    'stored',
  )
})
