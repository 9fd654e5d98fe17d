// A real gateway (startGateway on a tmp data dir, port 0): the button through the control
// socket, tokens over HTTP, `gateway token list|revoke`, and no token left in files or logs.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import { parseConfig } from '../../../lib/config.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { sendControl } from '../../../runtime/control/control.ts'
import { startCheckedGateway } from '../../helpers/checked-gateway.ts'
import { formatTokenList, tokenCliCommand, type TokenListRow } from '../../../runtime/cli/token-commands.ts'
import { runCli } from '../../helpers/process.ts'

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name)
    const stat = statSync(full)
    return stat.isDirectory() ? filesUnder(full) : stat.isFile() ? [full] : []
  })
}

async function start(t: Test, extra: Record<string, unknown> = {}) {
  const dataDir = t.testdir({})
  const logs = memoryLogger()
  const config = parseConfig({ dataDir, port: 0, host: '127.0.0.1', mdns: { enabled: false }, ...extra })
  const gateway = await startCheckedGateway({ config, log: logs.log })
  let stopped = false
  const stop = async () => {
    if (!stopped) await gateway.stop()
    stopped = true
  }
  t.teardown(stop)
  const api = async (method: string, target: string, token?: string) => {
    const response = await fetch(`http://127.0.0.1:${gateway.port}${target}`, {
      method,
      headers: token ? { authorization: `Bearer ${token}` } : {},
    })
    return { status: response.status, body: (await response.json()) as any, headers: response.headers }
  }
  return { dataDir, logs, gateway, api, stop }
}

t.test('the button through the control socket opens the window for the first token', async (t) => {
  const { dataDir, api } = await start(t)
  const closed = await api('GET', '/api/v2/accesstoken/generate?name=pos')
  t.equal(closed.status, 403)
  t.equal(closed.body.returnCode, -3)

  const state = (await sendControl(dataDir, 'button.press')) as { open: boolean; closesAt: number }
  t.equal(state.open, true)
  const first = await api('GET', '/api/v2/accesstoken/generate?name=pos')
  t.equal(first.status, 201)
  t.equal(first.headers.get('cache-control'), 'no-store')
  t.match(first.body, { returnCode: 2, token: { name: 'pos', token: /^[0-9a-f]{48}$/ } })
  t.match(await sendControl(dataDir, 'button.status'), { open: false }, 'the first token closed the window')
  t.equal((await api('GET', '/api/v2/accesstoken/generate?name=again')).status, 403)

  const mine = await api('GET', '/api/v2/accesstoken', first.body.token.token)
  t.match(mine.body, { returnCode: 1, token: { name: 'pos', ip_address: '127.0.0.1' } })
})

t.test('gateway token list / revoke on the host; revocation is immediate', async (t) => {
  const { dataDir, api } = await start(t)
  await sendControl(dataDir, 'button.press')
  const admin = (await api('GET', '/api/v2/accesstoken/generate?name=admin')).body.token.token as string
  const kds = (await api('POST', '/api/v2/accesstoken/generate?name=kds', admin)).body.token.token as string
  t.equal((await api('GET', '/api/v2/accesstoken', kds)).status, 200)

  const rows = (await sendControl(dataDir, 'token.list')) as TokenListRow[]
  t.match(rows, [
    { name: 'admin', prefix: admin.slice(0, 6) },
    { name: 'kds', prefix: kds.slice(0, 6), ip_address: '127.0.0.1' },
  ])
  const listed = await tokenCliCommand(['list'], {}, dataDir)
  t.match(listed, /^NAME\s+PREFIX\s+SCOPE\s+CREATED\s+LAST USED\s+FROM\n/)
  t.match(listed, new RegExp(`kds\\s+${kds.slice(0, 6)}…\\s+admin`))
  t.notOk(listed.includes(kds) || listed.includes(admin), 'no token printed')

  t.equal(await tokenCliCommand(['revoke', 'kds'], {}, dataDir), 'revoked 1 access token named "kds"')
  const after = await api('GET', '/api/v2/accesstoken', kds)
  t.equal(after.status, 401, 'the revoked token fails on the next request')
  t.equal(after.body.returnCode, -2)
  t.equal((await api('GET', '/api/v2/accesstoken', admin)).status, 200)

  await t.rejects(tokenCliCommand(['revoke', 'kds'], {}, dataDir), /no access token named "kds"/)
  await t.rejects(tokenCliCommand(['revoke', 'a b'], {}, dataDir), /is not a token name/)
  await t.rejects(tokenCliCommand(['drop'], {}, dataDir), /usage: gateway token list[\s\S]*gateway token create <name> \[--scope/)

  // Two screens that share a name: one is renamed by its prefix, then both names by name.
  const screenA = (await api('POST', '/api/v2/accesstoken/generate?name=board', admin)).body.token.token as string
  await api('POST', '/api/v2/accesstoken/generate?name=board', admin)
  t.equal(await tokenCliCommand(['rename', screenA.slice(0, 6), 'bar-screen'], {}, dataDir), 'renamed 1 access token to "bar-screen"')
  t.match(await api('GET', '/api/v2/accesstoken', screenA), { status: 200, body: { token: { name: 'bar-screen' } } }, 'in force at once')
  t.equal(await tokenCliCommand(['rename', 'board', 'kitchen'], {}, dataDir), 'renamed 1 access token to "kitchen"')
  t.same(
    ((await sendControl(dataDir, 'token.list')) as TokenListRow[]).map((row) => row.name),
    ['admin', 'bar-screen', 'kitchen'],
  )
  await t.rejects(tokenCliCommand(['rename', 'board', 'x'], {}, dataDir), /no access token named "board"/)
  await t.rejects(tokenCliCommand(['rename', 'kitchen', 'a b'], {}, dataDir), /"a b" is not a token name/)
  await t.rejects(tokenCliCommand(['rename', 'kitchen'], {}, dataDir), /gateway token rename <name or prefix> <new name>/)
  t.equal((await runCli(['token', 'rename', 'kitchen', 'pass', '--data-dir', dataDir])).stdout, 'renamed 1 access token to "pass"\n')
  await tokenCliCommand(['revoke', 'bar-screen'], {}, dataDir)
  await tokenCliCommand(['revoke', 'pass'], {}, dataDir)

  // The same through the real command line.
  const cli = await runCli(['token', 'list', '--data-dir', dataDir])
  t.equal(cli.code, 0)
  t.match(cli.stdout, /admin\s+[0-9a-f]{6}…/)
  const revoke = await runCli(['token', 'revoke', 'admin', '--data-dir', dataDir])
  t.equal(revoke.code, 0)
  t.equal((await api('GET', '/api/v2/accesstoken', admin)).status, 401)
  t.match((await runCli(['token', 'list', '--data-dir', dataDir])).stdout, /no access tokens/)
})

t.test('gateway token create --scope mints a token of that scope, printed once; token scope narrows, never widens', async (t) => {
  const { dataDir, api } = await start(t)
  const created = await runCli(['token', 'create', 'wall', '--scope', 'screen', '--data-dir', dataDir])
  t.equal(created.code, 0, created.stderr)
  const [token, said] = created.stdout.trimEnd().split('\n')
  t.match(token, /^[0-9a-f]{48}$/)
  t.equal(said, 'created access token "wall" (scope screen); the token above is shown only now')
  t.match(await api('GET', '/api/v2/accesstoken', token), { status: 200, body: { token: { name: 'wall', scope: 'screen' } } })
  t.match(await api('GET', '/api/v2/gateway/settings', token), { status: 403, body: { returnCode: -51 } }, 'a screen token cannot read the settings')
  t.match(await tokenCliCommand(['list'], {}, dataDir), new RegExp(`wall\\s+${token!.slice(0, 6)}…\\s+screen\\s`))

  const admin = (await sendControl(dataDir, 'token.create', { name: 'office' })) as { token: string; row: TokenListRow }
  t.equal(admin.row.scope, 'admin', 'without --scope: admin, as the button gives')
  t.equal(await tokenCliCommand(['scope', 'office', 'pos'], {}, dataDir), 'narrowed 1 access token to pos')
  t.match(await api('GET', '/api/v2/accesstoken/all', admin.token), { status: 403, body: { returnCode: -51 } }, 'narrowed at once')
  t.equal((await api('DELETE', '/api/v2/activeorders', admin.token)).status, 200, 'a till still clears every order')
  await t.rejects(tokenCliCommand(['scope', 'office', 'admin'], {}, dataDir), /"office" is pos; a scope can only be narrowed[\s\S]*never widened/)
  await t.rejects(tokenCliCommand(['scope', token!.slice(0, 6), 'pos'], {}, dataDir), /never widened/, 'by prefix too')
  t.match(await api('GET', '/api/v2/accesstoken', admin.token), { body: { token: { scope: 'pos' } } }, 'a refused widening changes nothing')
  await t.rejects(tokenCliCommand(['scope', 'office', 'root'], {}, dataDir), /"root" is not a scope \(read, screen, pos, admin\)/)
  await t.rejects(tokenCliCommand(['create', 'x'], { scope: 'owner' }, dataDir), /"owner" is not a scope/)
  await t.rejects(tokenCliCommand(['create', 'a b'], {}, dataDir), /"a b" is not a token name/)
  await t.rejects(tokenCliCommand(['scope', 'nobody', 'read'], {}, dataDir), /no access token named "nobody"/)
  t.same(
    ((await sendControl(dataDir, 'token.list')) as TokenListRow[]).map((row) => [row.name, row.scope]),
    [
      ['wall', 'screen'],
      ['office', 'pos'],
    ],
    'refusals minted nothing',
  )
})

t.test('no token string in the data dir or the logs; last_used is written at stop', async (t) => {
  const { dataDir, api, logs, stop } = await start(t)
  await sendControl(dataDir, 'button.press')
  const token = (await api('GET', '/api/v2/accesstoken/generate?name=pos')).body.token.token as string
  const second = (await api('POST', '/api/v2/accesstoken/generate?name=kds', token)).body.token.token as string
  for (let i = 0; i < 5; i++) await api('GET', '/api/v2/accesstoken', second)
  await api('GET', '/api/v2/accesstoken', 'f'.repeat(48))
  await stop()

  const files = filesUnder(dataDir)
  t.ok(
    files.some((file) => file.endsWith('tokens.db')),
    'tokens are stored',
  )
  for (const file of files) {
    const bytes = readFileSync(file)
    for (const secret of [token, second]) {
      t.equal(bytes.indexOf(secret), -1, `${path.basename(file)} does not hold a token`)
      t.equal(bytes.indexOf(Buffer.from(secret, 'hex')), -1, `${path.basename(file)} does not hold its raw bytes`)
    }
  }
  const stored = readFileSync(path.join(dataDir, 'tokens.db'), 'utf8')
  t.match(stored, /"name":"kds".*"lastUsedAt":\d+.*"ipAddress":"127\.0\.0\.1"/, 'the last use was flushed at stop')
  const logText = logs.text()
  t.match(logText, /access token issued/)
  t.notOk(logText.includes(token) || logText.includes(second), 'no token in the logs')
})

t.test('security.openRoutes: a listed route opens, a typo is reported at start', async (t) => {
  const { api, logs } = await start(t, { security: { openRoutes: ['GET /api/v2/accesstoken/all', 'GET /api/v2/acesstoken/all'] } })
  t.equal((await api('GET', '/api/v2/accesstoken/all')).status, 200)
  t.match(logs.text(), /"route":"GET \/api\/v2\/acesstoken\/all".*opens nothing/)
  t.notMatch(logs.text(), /"route":"GET \/api\/v2\/accesstoken\/all".*opens nothing/)
})

t.test('formatTokenList', async (t) => {
  t.equal(formatTokenList([]), 'no access tokens')
  t.equal(
    formatTokenList([{ name: 'a', prefix: '0a1b2c', scope: 'screen', creation_date: '2026-01-01T10:00:00', last_used: null, ip_address: null }]),
    'NAME  PREFIX   SCOPE   CREATED              LAST USED  FROM\na     0a1b2c…  screen  2026-01-01T10:00:00  never      -',
  )
})
