// Connection caps and per-connection backpressure on a real HTTP host (loopback; other
// 127.x addresses stand in for other LAN clients).
import net from 'node:net'
import t, { type Test } from 'tap'
import { createHttpHost, type HttpHostOptions } from '../../../runtime/host/http.ts'
import { buildRouter } from '../../../runtime/host/router.ts'
import { testGateway } from '../../helpers/gateway.ts'
import { testEntry } from '../../helpers/manifest.ts'

async function serve(t: Test, options: HttpHostOptions) {
  const gw = await testGateway()
  let answered = 0
  const pad = 'x'.repeat(256 * 1024)
  const manifest = [
    testEntry('v2/small.get.ts', 'GET', '/api/v2/small', async (_request, ctx) => ctx.ok({ ok: true })),
    testEntry('v2/big.get.ts', 'GET', '/api/v2/big', async (_request, ctx) => {
      answered++
      return ctx.ok({ n: answered, pad })
    }),
  ]
  const host = createHttpHost(buildRouter(manifest, gw.services), gw.services.log, options)
  const port = await host.listen(0, '127.0.0.1')
  t.teardown(() => host.close(100))
  return { host, port, answered: () => answered }
}

/** A connection from `from` that has had one answer (so the server has counted it), or the refusal it got. */
function connection(t: Test, port: number, from: string): Promise<{ socket: net.Socket; first: string }> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress: from })
    t.teardown(() => socket.destroy())
    let text = ''
    socket.on('data', (chunk) => {
      text += chunk
      if (text.includes('}')) resolve({ socket, first: text })
    })
    socket.on('close', () => resolve({ socket, first: text }))
    socket.on('error', () => undefined)
    socket.write('GET /api/v2/small HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')
  })
}

t.test('connections are capped per address and in all; a refused one is told so and closed', async (t) => {
  const { host, port } = await serve(t, { limits: { maxConnections: 4, maxPerAddress: 2 } })
  const status = (text: string) => /^HTTP\/1\.1 (\d+)/.exec(text)?.[1]
  t.equal(status((await connection(t, port, '127.0.0.1')).first), '200')
  t.equal(status((await connection(t, port, '127.0.0.1')).first), '200')
  const third = await connection(t, port, '127.0.0.1')
  t.equal(status(third.first), '503', 'a third from one address is refused')
  t.match(third.first, /"message":"Too many connections"/)
  const other = await connection(t, port, '127.0.0.2')
  t.equal(status(other.first), '200', 'another address still gets in')
  t.equal(status((await connection(t, port, '127.0.0.3')).first), '200')
  t.equal(host.connections, 4)
  t.equal(status((await connection(t, port, '127.0.0.4')).first), '503', 'the total is capped too')
  other.socket.destroy()
  await new Promise<void>((resolve) => {
    const check = () => (host.connections === 3 ? resolve() : setTimeout(check, 10))
    check()
  })
  t.equal(status((await connection(t, port, '127.0.0.4')).first), '200', 'a closed connection frees its place')
})

t.test('a client pipelining without reading gets no more answers made than it can hold', async (t) => {
  const { port, answered } = await serve(t, {})
  const requests = 200
  const socket = net.connect({ port, host: '127.0.0.1' })
  t.teardown(() => socket.destroy())
  socket.pause()
  await new Promise((resolve) => socket.once('connect', resolve))
  socket.write('GET /api/v2/big HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'.repeat(requests))
  // Wait until the server stops making answers (the kernel's buffers are full as well).
  let last = -1
  let steadySince = Date.now()
  const deadline = Date.now() + 15_000
  while (Date.now() - steadySince < 500 && Date.now() < deadline) {
    if (answered() !== last) {
      last = answered()
      steadySince = Date.now()
    }
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  t.ok(answered() < requests / 2, `${answered()} of ${requests} answers made while the client reads nothing`)

  // Once it reads, every answer comes, in order.
  let text = ''
  socket.setEncoding('latin1')
  socket.on('data', (chunk: string) => (text += chunk))
  socket.resume()
  await new Promise<void>((resolve) => {
    const check = () => ((text.match(/HTTP\/1\.1 200/g)?.length ?? 0) >= requests && text.endsWith('}') ? resolve() : setTimeout(check, 20))
    check()
  })
  const order = [...text.matchAll(/"n":(\d+)/g)].map((m) => Number(m[1]))
  t.same(order, Array.from({ length: requests }, (_, i) => i + 1))
})

t.test('a connection with too many requests waiting is closed', async (t) => {
  const { port } = await serve(t, { limits: { maxActivePerConnection: 1, maxWaitingPerConnection: 3 } })
  const socket = net.connect({ port, host: '127.0.0.1' })
  t.teardown(() => socket.destroy())
  socket.on('error', () => undefined)
  socket.resume()
  await new Promise((resolve) => socket.once('connect', resolve))
  // Small answers: node itself stops parsing only once answers pile up unwritten.
  socket.write('GET /api/v2/small HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'.repeat(50))
  await new Promise((resolve) => socket.once('close', resolve))
  t.pass('closed by the server')
})
