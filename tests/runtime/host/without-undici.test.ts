// Node's Request, Response and Headers live in undici, which Node loads the first time one of
// those globals is read (about 12 MB resident). A gateway serving the API, the board's files,
// HEAD requests and WebSocket subscribers never needs one: the host's stand-ins (NodeRequest,
// JsonResponse, BytesResponse) build a real one only when a function asks for a member they
// do not keep. This runs a real gateway, uses it, and reads what Node loaded.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { checkFetchAnswers } from '../../helpers/documented-responses.ts'
import { WebSocket } from 'ws'
import { startGatewayProcess } from '../../helpers/process.ts'

const probe = fileURLToPath(new URL('../../helpers/loaded-builtins-probe.ts', import.meta.url))
const undici = 'internal/deps/undici/undici'

t.test('serving the API, the board, HEAD and WebSocket loads no undici', async (t) => {
  checkFetchAnswers(t)
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'without-undici-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const configFile = path.join(dataDir, 'gateway.config.json')
  await writeFile(
    configFile,
    JSON.stringify({ host: '127.0.0.1', mdns: { enabled: false }, security: { openRoutes: ['POST /api/v2/activeorders', 'GET /api/v2/activeorders'] } }),
  )
  const loadedFile = path.join(dataDir, 'loaded.json')
  const gateway = await startGatewayProcess(dataDir, { GATEWAY_CONFIG: configFile, NODE_OPTIONS: `--import=${probe}`, LOADED_BUILTINS_OUT: loadedFile })
  let stopped = false
  t.teardown(() => (stopped ? undefined : gateway.stop('SIGKILL')))
  // The test's own fetch is a separate process's undici: only the gateway's list is read.
  const post = await fetch(`${gateway.url}/api/v2/activeorders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 12, orderType: 'TO_GO' }),
  })
  t.equal(post.status, 200, await post.text())
  t.equal((await fetch(`${gateway.url}/api/v2/activeorders`)).status, 200)
  t.equal((await fetch(`${gateway.url}/api/v1/activeorders`)).status, 200)
  t.equal((await fetch(`${gateway.url}/api/v2/activeorders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' })).status, 400)
  const board = await fetch(`${gateway.url}/`)
  t.equal(board.status, 200)
  await board.arrayBuffer()
  t.equal((await fetch(`${gateway.url}/`, { headers: { 'if-none-match': board.headers.get('etag')! } })).status, 304)
  const head = await fetch(`${gateway.url}/`, { method: 'HEAD' })
  t.equal(head.headers.get('content-length'), board.headers.get('content-length'))
  t.equal((await fetch(`${gateway.url}/api/openapi.json`)).status, 200)
  t.equal((await fetch(`${gateway.url}/nowhere`)).status, 404)
  const socket = new WebSocket(`ws://127.0.0.1:${gateway.port}/api/v2/websocket`)
  const frame = await new Promise<string>((resolve, reject) => {
    socket.once('open', () => socket.send('not json'))
    socket.once('message', (data) => resolve(String(data)))
    socket.once('error', reject)
  })
  t.match(JSON.parse(frame), { status: 400, returnCode: -31 })
  socket.close()

  t.equal(await gateway.stop(), 0)
  stopped = true
  const loaded = JSON.parse(await readFile(loadedFile, 'utf8')) as string[]
  t.ok(loaded.includes('http'), 'the probe saw what the gateway loaded')
  t.notOk(loaded.includes(undici), 'undici was not loaded')
})
