// The example runs: an existing node:http server answers its own paths and the gateway's API
// under /gateway through the @whatwg-node/server adapter.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const example = fileURLToPath(new URL('../../examples/mount-under-prefix.ts', import.meta.url))

t.test('the gateway API is served under /gateway of an existing server', async (t) => {
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', example, '0'], { stdio: ['ignore', 'pipe', 'inherit'] })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  t.teardown(() => void child.kill('SIGKILL'))
  const line = await new Promise<string>((resolve) => child.stdout.once('data', (chunk) => resolve(String(chunk))))
  const { port, token } = JSON.parse(line) as { port: number; token: string }
  const base = `http://127.0.0.1:${port}`
  const auth = { authorization: `Bearer ${token}` }

  t.equal(await (await fetch(`${base}/`)).text(), 'the existing application\n', 'the host server keeps its own paths')
  t.match(await (await fetch(`${base}/gateway/api/v2`)).json(), { status: 200, returnCode: 20, apiVersion: 'v2' })
  t.match(await (await fetch(`${base}/gateway/api/v2/activeorders`)).json(), { status: 401, returnCode: -2 }, 'the auth gate applies')
  const created = await fetch(`${base}/gateway/api/v2/activeorders`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 12, orderType: 'TO_GO' }),
  })
  t.equal(created.status, 200)
  t.equal(created.headers.get('content-length'), String((await created.clone().arrayBuffer()).byteLength))
  t.match(await created.json(), { returnCode: 5, activeorder: { name: '12' } })
  t.match(await (await fetch(`${base}/gateway/api/v2/activeorders`, { headers: auth })).json(), { count: 1 })
  t.match(await (await fetch(`${base}/gateway/api/v1/nothing`)).json(), { status: 404, message: /./ })
  child.kill('SIGTERM')
  t.equal(await exited, 0, 'stops cleanly')
})
