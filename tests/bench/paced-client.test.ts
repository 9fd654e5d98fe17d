// The bench's open-loop client: every due request is answered and timed once, statuses are
// read from answers whose head arrives in pieces, connections a server closes when idle are
// replaced without losing a request, and the worker-thread wrapper gives the same result.
// Counts only: how fast anything is belongs to `npm run bench`.
import http from 'node:http'
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { pacedLoad, type PacedOptions } from '../../bench/paced-client.ts'
import { pacedLoadInWorker } from '../../bench/paced-worker.ts'

async function listening(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return (server.address() as AddressInfo).port
}

function closing(t: Test, server: net.Server & { closeAllConnections?: () => void }): void {
  t.teardown(() => {
    server.closeAllConnections?.()
    return new Promise<void>((resolve) => server.close(() => resolve()))
  })
}

const body = JSON.stringify({ status: 0, items: 'x'.repeat(20_000) })

function answering(status: number): http.Server {
  return http.createServer((_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
    res.end(body)
  })
}

const options = (port: number, more: Partial<PacedOptions> = {}): PacedOptions => ({
  port,
  path: '/',
  headers: { authorization: 'Bearer x' },
  rate: 1000,
  seconds: 0.4,
  warmSeconds: 0.1,
  connections: 4,
  ...more,
})

t.test('every request after the warm-up is timed once, sorted, with its status counted', async (t) => {
  const server = answering(200)
  closing(t, server)
  let measuring = 0
  const result = await pacedLoad(options(await listening(server), { onMeasuring: () => measuring++ }))
  t.equal(result.latencies.length, 400, 'rate × seconds, the 100 warm-up requests left out')
  t.equal(result.errors, 0)
  t.equal(result.non2xx, 0)
  t.equal(measuring, 1)
  t.ok(
    result.latencies.every((ms, i) => ms >= 0 && (i === 0 || ms >= result.latencies[i - 1])),
    'non-negative and ascending',
  )
  t.ok(result.seconds > 0)
})

t.test("the client's own pauses in the recorded part are reported", async (t) => {
  const server = answering(200)
  closing(t, server)
  // The client's thread held up for 30 ms just as the recorded part begins.
  const pause = () => {
    const until = performance.now() + 30
    while (performance.now() < until);
  }
  const result = await pacedLoad(options(await listening(server), { onMeasuring: pause }))
  t.ok(result.stalls.count >= 1)
  t.ok(result.stalls.maxMs >= 30, `longest pause ${result.stalls.maxMs} ms`)
  t.ok(result.stalls.totalMs >= result.stalls.maxMs)
  t.equal(result.latencies.length, 400, 'every request still answered and timed')
})

t.test('answers other than 2xx are counted as such', async (t) => {
  const server = answering(404)
  closing(t, server)
  const result = await pacedLoad(options(await listening(server)))
  t.equal(result.latencies.length, 400)
  t.equal(result.non2xx, 400)
})

t.test('a head that arrives in pieces is put together (the receive buffer is reused)', async (t) => {
  // A raw server writing each answer's head in three pieces, the body after a pause.
  const server = net.createServer((socket) => {
    let pending = ''
    socket.on('data', (chunk) => {
      pending += chunk.toString('latin1')
      while (pending.includes('\r\n\r\n')) {
        pending = pending.slice(pending.indexOf('\r\n\r\n') + 4)
        // One piece 2 ms after the other, each timer set once the piece before is written:
        // timers of different lengths set together can fire out of order on a loaded machine.
        const pieces = ['HTTP/1.1 503 Service Unavailable\r\nConte', 'nt-Length: 5\r\ncontent-type: text/plain\r', '\n\r\nbu', 'sy!']
        const next = () => {
          socket.write(pieces.shift()!)
          if (pieces.length > 0) setTimeout(next, 2)
        }
        next()
      }
    })
  })
  closing(t, server)
  const result = await pacedLoad(options(await listening(server), { rate: 200, seconds: 0.25, warmSeconds: 0, connections: 8 }))
  t.equal(result.latencies.length, 50)
  t.equal(result.non2xx, 50, 'the status came from the first piece')
  t.equal(result.errors, 0)
})

t.test('connections the server closes when idle are replaced and no request is lost', async (t) => {
  const server = answering(200)
  server.keepAliveTimeout = 30
  closing(t, server)
  const result = await pacedLoad(options(await listening(server), { rate: 40, seconds: 0.5, warmSeconds: 0, connections: 4 }))
  t.equal(result.latencies.length, 20)
  t.equal(result.errors, 0)
})

t.test('in a worker thread: the same result, and the start of the recorded part is reported', async (t) => {
  const server = answering(200)
  closing(t, server)
  let measuring = 0
  const result = await pacedLoadInWorker(options(await listening(server), { onMeasuring: () => measuring++ }))
  t.equal(result.latencies.length, 400)
  t.equal(result.errors, 0)
  t.equal(measuring, 1)
  t.type(result.latencies, Float64Array)
})
