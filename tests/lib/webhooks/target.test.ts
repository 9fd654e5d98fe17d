import t from 'tap'
import { DomainError } from '../../../lib/kernel/errors.ts'
import { parseTarget, TargetGuard, TargetRefused } from '../../../lib/webhooks/target.ts'

const kindOf = (fn: () => unknown) => {
  try {
    fn()
  } catch (error) {
    return error instanceof DomainError ? error.kind : 'other'
  }
  return 'none'
}

t.test('parseTarget: missing → -28 kind, malformed → -29 kind', async (t) => {
  t.equal(
    kindOf(() => parseTarget(undefined)),
    'CALLBACK_MISSING',
  )
  t.equal(
    kindOf(() => parseTarget('')),
    'CALLBACK_MISSING',
  )
  for (const bad of [
    'not a url',
    'file:///etc/passwd',
    'gopher://10.0.0.1/',
    'http://user:pw@10.0.0.1/',
    'ftp://10.0.0.1/',
    42,
    `http://10.0.0.1/${'a'.repeat(10_000)}`,
  ]) {
    t.equal(
      kindOf(() => parseTarget(bad)),
      'CALLBACK_INVALID',
      String(bad).slice(0, 40),
    )
  }
  t.equal(parseTarget('HTTP://Receiver.LAN:80/x#frag').href, 'http://receiver.lan/x', 'normalised, fragment dropped')
})

function lookup(guard: TargetGuard, host: string, port: number, all = false): Promise<unknown> {
  return new Promise((resolve, reject) => {
    guard.lookupFor(port)(host, { all }, (error: unknown, address: unknown) => (error ? reject(error) : resolve(address)))
  })
}

t.test('guard: loopback only when allowed; never the gateway itself', async (t) => {
  const own = { host: '0.0.0.0', port: 8000 }
  const strict = new TargetGuard({ allowLoopback: false, ownEndpoint: () => own })
  const loose = new TargetGuard({ allowLoopback: true, ownEndpoint: () => own })
  t.match(strict.refusal('127.0.0.1', 9000), /loopback/)
  t.equal(loose.refusal('127.0.0.1', 9000), null)
  t.match(loose.refusal('127.0.0.1', 8000), /own address/)
  t.match(loose.refusal('127.0.0.2', 8000), /own address/, 'all of 127/8 reaches a socket on 0.0.0.0')
  t.match(loose.refusal('169.254.169.254', 80), /link-local/)
  t.equal(strict.refusal('10.99.0.1', 8000), null, 'a LAN receiver on the same port number is someone else')
  t.throws(() => strict.checkLiteral(new URL('http://2130706433:9000/')), TargetRefused)
  t.doesNotThrow(() => strict.checkLiteral(new URL('http://receiver.lan/')), 'names are checked at lookup')
})

t.test('guard lookup: every resolved address is checked, at each connection (rebinding)', async (t) => {
  const answers = [[{ address: '10.1.2.3', family: 4 as const }], [{ address: '127.0.0.1', family: 4 as const }]]
  let calls = 0
  const guard = new TargetGuard({ allowLoopback: false, ownEndpoint: () => null, resolver: async () => answers[Math.min(calls++, 1)]! })
  t.equal(await lookup(guard, 'rebind.test', 80), '10.1.2.3', 'first answer allowed')
  await t.rejects(lookup(guard, 'rebind.test', 80), /resolves to 127\.0\.0\.1/, 'second answer refused')
  const mixed = new TargetGuard({
    allowLoopback: false,
    ownEndpoint: () => null,
    resolver: async () => [
      { address: '10.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ],
  })
  await t.rejects(lookup(mixed, 'mixed.test', 80, true), TargetRefused, 'one forbidden answer refuses the name')
})
