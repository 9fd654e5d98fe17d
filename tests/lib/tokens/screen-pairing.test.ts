import t from 'tap'
import { DomainError } from '../../../lib/kernel/errors.ts'
import { codeAlphabet, displayCode, maxWaiting, normaliseCode, perAddress, ScreenPairing } from '../../../lib/tokens/screen-pairing.ts'
import type { Scope } from '../../../lib/tokens/scopes.ts'
import type { IssuedToken } from '../../../lib/tokens/service.ts'
import { ManualClock } from '../../helpers/manual-clock.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'

const admin = { name: 'manager', scope: 'admin' as Scope }

/** A pairing over a token store that records what it mints; `fail` makes the next mints throw. */
function pairing(options: { room?: () => void } = {}) {
  const clock = new ManualClock()
  const minted: { name: string; scope: Scope; secret: string | undefined }[] = []
  const state = { fail: null as DomainError | null }
  const tokens = {
    issue: async (name: string, scope: Scope = 'admin', secret?: string): Promise<IssuedToken> => {
      await Promise.resolve()
      if (state.fail) throw state.fail
      minted.push({ name, scope, secret })
      const token = secret ?? 'f'.repeat(48)
      return { token, record: { id: `id${minted.length}`, name, prefix: token.slice(0, 6), scope, createdAt: 0, lastUsedAt: null, ipAddress: null } }
    },
    assertRoom: options.room ?? (() => {}),
  }
  return { clock, minted, state, screens: new ScreenPairing({ clock, tokens, log: memoryLogger().log }) }
}

/** The error `fn` throws (undefined when it does not). */
function caught(fn: () => unknown): unknown {
  try {
    fn()
  } catch (error) {
    return error
  }
  return undefined
}

t.test('codes: unambiguous characters, normalised however they are typed', async (t) => {
  t.notMatch(codeAlphabet, /[01OIL]/)
  t.equal(normaliseCode(' k7qm-4xtp '), 'K7QM4XTP')
  t.equal(displayCode('K7QM4XTP'), 'K7QM-4XTP')
})

t.test('the whole gateway holds a bounded number of waiting screens', async (t) => {
  const { clock, screens } = pairing()
  for (let i = 0; i < maxWaiting; i++) screens.request(`10.0.${i}.1`, undefined)
  t.match(
    caught(() => screens.request('10.9.9.9', undefined)),
    { kind: 'SCREEN_CODES_EXHAUSTED', retryAfter: 600 },
  )
  await clock.advance(60_000)
  t.match(
    caught(() => screens.request('10.9.9.9', undefined)),
    { kind: 'SCREEN_CODES_EXHAUSTED', retryAfter: 540 },
    'Retry-After: when the oldest expires',
  )
  await clock.advance(540_000)
  t.equal(screens.request('10.9.9.9', undefined).name, 'screen', 'room again once they expire')
})

t.test('the refusal of a new code says when to retry, in words', async (t) => {
  const { clock, screens } = pairing()
  for (let i = 0; i < perAddress; i++) screens.request('10.0.0.7', undefined)
  t.match(
    caught(() => screens.request('10.0.0.7', undefined)),
    { kind: 'SCREEN_CODES_EXHAUSTED', detail: 'retry in 10 min', retryAfter: 600 },
  )
  await clock.advance(2_000)
  t.match(
    caught(() => screens.request('10.0.0.7', undefined)),
    { detail: 'retry in 9 min 58 s', retryAfter: 598 },
  )
  await clock.advance(595_000)
  t.match(
    caught(() => screens.request('10.0.0.7', undefined)),
    { detail: 'retry in 3 s', retryAfter: 3 },
  )
})

t.test('a screen asking again replaces its old request: pressing "Show a code" often locks nobody out', async (t) => {
  const { screens } = pairing()
  let previous = screens.request('10.0.0.8', 'wall')
  for (let press = 0; press < 2 * perAddress; press++) {
    const next = screens.request('10.0.0.8', 'wall', previous.id)
    t.not(next.code, previous.code)
    t.match(await screens.poll(previous.id).catch((error: unknown) => error), { kind: 'SCREEN_REQUEST_NOT_FOUND' }, 'the old request is gone')
    t.match(
      caught(() => screens.approve(previous.code, admin, '10.0.0.1')),
      { kind: 'SCREEN_CODE_UNKNOWN' },
      'and its code approves nothing',
    )
    previous = next
  }
  t.equal(screens.waiting, 1, 'one place held however often it asked')
  t.equal(screens.request('10.0.0.8', 'other-screen').name, 'other-screen', 'another screen behind the same address still gets a code')
  t.equal(screens.request('10.0.0.8', 'wall', 'ab'.repeat(16)).name, 'wall', 'an unknown or expired old request is simply ignored')
})

t.test('an approval mints nothing until the screen collects it; uncollected, it lapses unminted', async (t) => {
  const { clock, minted, screens } = pairing()
  const collected = screens.request('10.0.0.2', 'wall')
  const approved = screens.approve(collected.code, admin, '10.0.0.1')
  t.same(minted, [], 'approving stores no token')
  t.equal(approved.scope, 'screen', 'a screen gets screen unless the approver chooses otherwise')
  const poll = await screens.poll(collected.id)
  t.match(
    poll,
    { state: 'approved', issued: { record: { name: 'wall', scope: 'screen', prefix: approved.prefix } } },
    'the prefix the approver saw is the token the screen got',
  )
  t.same(
    minted.map((m) => [m.name, m.scope]),
    [['wall', 'screen']],
    'minted once, when collected',
  )

  const never = screens.request('10.0.0.3', 'forgotten')
  screens.approve(never.code, admin, '10.0.0.1')
  await clock.advance(10 * 60_000)
  t.match(await screens.poll(never.id).catch((error: unknown) => error), { kind: 'SCREEN_REQUEST_NOT_FOUND' }, 'expired with its request')
  t.equal(minted.length, 1, 'the uncollected approval never became a token')
})

t.test('two polls at once collect one token', async (t) => {
  const { minted, screens } = pairing()
  const request = screens.request('10.0.0.2', 'wall')
  screens.approve(request.code, admin, '10.0.0.1')
  const [a, b] = await Promise.allSettled([screens.poll(request.id), screens.poll(request.id)])
  t.equal(minted.length, 1)
  t.equal(a.status, 'fulfilled')
  t.match(b, { status: 'rejected', reason: { kind: 'SCREEN_REQUEST_NOT_FOUND' } }, 'the second is told the request is gone')
})

t.test('scopes: the approver chooses, never above its own', async (t) => {
  const { minted, screens } = pairing()
  const request = screens.request('10.0.0.2', 'till')
  t.match(
    caught(() => screens.approve(request.code, { name: 'wall', scope: 'screen' }, '10.0.0.1', { scope: 'admin' })),
    { kind: 'SCOPE_DENIED' },
  )
  t.match(await screens.poll(request.id), { state: 'waiting' }, 'a refused approval leaves the code waiting')
  t.same(screens.approve(request.code, admin, '10.0.0.1', { scope: 'pos', name: 'till-1' }).scope, 'pos')
  await screens.poll(request.id)
  t.same(
    minted.map((m) => [m.name, m.scope]),
    [['till-1', 'pos']],
  )
})

t.test('a full token store refuses the approval at once, and a failed mint can be collected again', async (t) => {
  let full = true
  const { state, screens, minted } = pairing({
    room: () => {
      if (full) throw new DomainError('TOKEN_LIMIT_REACHED')
    },
  })
  const request = screens.request('127.0.0.1', 'wall')
  t.match(
    caught(() => screens.approve(request.code, admin, '127.0.0.1')),
    { kind: 'TOKEN_LIMIT_REACHED' },
  )
  t.same(await screens.poll(request.id), { state: 'waiting', expiresAt: request.expiresAt })
  full = false
  screens.approve(request.code, admin, '127.0.0.1')
  state.fail = new DomainError('STORAGE_UNAVAILABLE')
  t.match(await screens.poll(request.id).catch((error: unknown) => error), { kind: 'STORAGE_UNAVAILABLE' })
  state.fail = null
  t.match(await screens.poll(request.id), { state: 'approved', issued: { record: { name: 'wall' } } }, 'collected on the next poll')
  t.equal(minted.length, 1)
})

t.test('wrong codes from one address are limited: ten a minute, saying when to retry', async (t) => {
  const { clock, screens } = pairing()
  const request = screens.request('10.0.0.2', 'wall')
  for (let i = 0; i < 10; i++)
    t.match(
      caught(() => screens.approve('ZZZZ-ZZZZ', admin, '10.0.0.1')),
      { kind: 'SCREEN_CODE_UNKNOWN' },
    )
  t.match(
    caught(() => screens.approve(request.code, admin, '10.0.0.1')),
    { kind: 'RATE_LIMITED', retryAfter: 6, detail: 'retry in 6 s' },
    'even the right code waits',
  )
  t.match(screens.approve(request.code, admin, '10.0.0.3'), { name: 'wall' }, 'another address is not limited')
  await clock.advance(6000)
  t.match(
    caught(() => screens.approve('ZZZZ-ZZZZ', admin, '10.0.0.1')),
    { kind: 'SCREEN_CODE_UNKNOWN' },
    'one more try after six seconds',
  )
})
