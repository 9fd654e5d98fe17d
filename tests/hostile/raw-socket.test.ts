// Raw HTTP on a real socket: what no fetch client would send.
import { mkdtempSync, rmSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t from 'tap'
import { parseConfig } from '../../lib/config.ts'
import { memoryLogger } from '../helpers/memory-logger.ts'
import { startCheckedGateway } from '../helpers/checked-gateway.ts'

function exchange(port: number, raw: string, waitMs = 1500): Promise<string> {
  return new Promise((resolve) => {
    let received = ''
    const socket = net.connect(port, '127.0.0.1', () => socket.write(raw))
    const done = () => {
      socket.destroy()
      resolve(received)
    }
    const timer = setTimeout(done, waitMs)
    socket.on('data', (chunk) => (received += chunk))
    socket.on('close', () => {
      clearTimeout(timer)
      resolve(received)
    })
    socket.on('error', () => undefined)
  })
}

t.test('raw-socket cases', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-raw-'))
  const gateway = await startCheckedGateway({
    config: parseConfig({ port: 0, host: '127.0.0.1', dataDir, mdns: { enabled: false } }),
    log: memoryLogger().log,
  })
  t.teardown(async () => {
    await gateway.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })
  const port = gateway.port

  t.test('pipelined requests are answered in order', async (t) => {
    const reply = await exchange(port, 'GET /api/v2 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /api/v1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n')
    const statuses = [...reply.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => m[1])
    t.same(statuses, ['200', '200'])
    t.ok(reply.indexOf('"apiVersion":"v2"') < reply.indexOf('"apiVersion":"v1"'), 'v2 answer first')
  })

  t.test('duplicate, conflicting Content-Length is refused with 400', async (t) => {
    const reply = await exchange(port, 'POST /api/v2 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\nContent-Length: 5\r\n\r\n{}')
    t.match(reply, /^HTTP\/1\.1 400 /)
    t.match(reply, /"status":400/)
  })

  t.test('Content-Length and Transfer-Encoding together are refused (request smuggling)', async (t) => {
    const reply = await exchange(port, 'POST /api/v2 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n')
    t.match(reply, /^HTTP\/1\.1 400 /)
  })

  t.test('a request line of garbage gets 400, not a crash', async (t) => {
    t.match(await exchange(port, 'HELLO\r\n\r\n'), /^HTTP\/1\.1 400 /)
    const after = await fetch(`http://127.0.0.1:${port}/api/v2`)
    t.equal(after.status, 200, 'still serving')
  })

  t.test('headers over 16 KiB get 431', async (t) => {
    const reply = await exchange(port, `GET /api/v2 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\n\r\n`)
    t.match(reply, /^HTTP\/1\.1 431 /)
  })

  t.test('a declared body over 16 KiB gets 413 -35 without being read', async (t) => {
    const reply = await exchange(
      port,
      'POST /api/v2/activeorders HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{',
    )
    t.match(reply, /^HTTP\/1\.1 413 /)
    t.match(reply, /"returnCode":-35/)
  })
})
