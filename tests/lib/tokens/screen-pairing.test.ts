import t from 'tap'
import { DomainError } from '../../../lib/kernel/errors.ts'
import { codeAlphabet, displayCode, maxWaiting, normaliseCode, ScreenPairing } from '../../../lib/tokens/screen-pairing.ts'
import { ManualClock } from '../../helpers/manual-clock.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'

function pairing(issue = async (name: string) => ({ token: 'f'.repeat(48), record: { id: 'x', name, prefix: 'ffffff', createdAt: 0, lastUsedAt: null, ipAddress: null } })) {
  const clock = new ManualClock()
  return { clock, screens: new ScreenPairing({ clock, tokens: { issue }, log: memoryLogger().log }) }
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
  t.match(caught(() => screens.request('10.9.9.9', undefined)), { kind: 'SCREEN_CODES_EXHAUSTED', retryAfter: 600 })
  await clock.advance(60_000)
  t.match(caught(() => screens.request('10.9.9.9', undefined)), { kind: 'SCREEN_CODES_EXHAUSTED', retryAfter: 540 }, 'Retry-After: when the oldest expires')
  await clock.advance(540_000)
  t.equal(screens.request('10.9.9.9', undefined).name, 'screen', 'room again once they expire')
})

t.test('a failed mint leaves the code waiting, approvable again', async (t) => {
  let fail = true
  const { screens } = pairing(async (name) => {
    if (fail) throw new DomainError('STORAGE_UNAVAILABLE')
    return { token: 'a'.repeat(48), record: { id: 'y', name, prefix: 'aaaaaa', createdAt: 0, lastUsedAt: null, ipAddress: null } }
  })
  const request = screens.request('127.0.0.1', 'wall')
  t.match(await screens.approve(request.code, 'manager', '127.0.0.1').catch((error: unknown) => error), { kind: 'STORAGE_UNAVAILABLE' })
  t.same(screens.poll(request.id), { state: 'waiting', expiresAt: request.expiresAt })
  fail = false
  t.same(await screens.approve(request.code, 'manager', '127.0.0.1'), { name: 'wall', prefix: 'aaaaaa' })
  t.match(screens.poll(request.id), { state: 'approved', issued: { token: 'a'.repeat(48) } })
})

t.test('wrong codes from one address are limited: ten a minute', async (t) => {
  const { clock, screens } = pairing()
  const request = screens.request('10.0.0.2', 'wall')
  for (let i = 0; i < 10; i++) t.match(await screens.approve('ZZZZ-ZZZZ', 'manager', '10.0.0.1').catch((error: unknown) => error), { kind: 'SCREEN_CODE_UNKNOWN' })
  t.match(await screens.approve(request.code, 'manager', '10.0.0.1').catch((error: unknown) => error), { kind: 'RATE_LIMITED', retryAfter: 6 }, 'even the right code waits')
  t.match(await screens.approve(request.code, 'manager', '10.0.0.3'), { name: 'wall' }, 'another address is not limited')
  await clock.advance(6000)
  t.match(await screens.approve('ZZZZ-ZZZZ', 'manager', '10.0.0.1').catch((error: unknown) => error), { kind: 'SCREEN_CODE_UNKNOWN' }, 'one more try after six seconds')
})
