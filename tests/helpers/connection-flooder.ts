// A hostile LAN device (or a few), run as its own process by the connection flood tests: holds
// `perAddress` TCP connections from each of `addresses` (loopback 127.x addresses bound with
// localAddress stand in for LAN hosts) to the gateway, and opens a new one whenever one is
// closed, after `reconnectMs`. Each connection sends `request` once if given (then idles on
// keep-alive, or sends it again `repeatMs` after each answer; `pipeline` copies at first), else nothing; `{address}` in it stands for the connection's own address. The
// gateway is at `host` (127.0.0.1 unless given: a test's namespace address). Prints a JSON line of its counts every 100 ms; exits when its
// stdin closes (the test ended), so it never outlives the test.
// Usage: node connection-flooder.ts '{"port":8000,"addresses":["127.0.2.1"],"perAddress":206}'
import net from 'node:net'

interface FloodPlan {
  port: number
  addresses: string[]
  perAddress: number
  request?: string
  reconnectMs?: number
  host?: string
  /** Send `request` again this long after each answer arrives (a keep-alive client that never stops). */
  repeatMs?: number
  /** Requests sent at once when a connection opens (pipelined; 1 unless given). */
  pipeline?: number
}

const plan = JSON.parse(process.argv[2]) as FloodPlan
const counts = { connected: 0, open: 0, closed: 0, errors: 0 }
let stopping = false

function hold(address: string): void {
  const socket = net.connect({ port: plan.port, host: plan.host ?? '127.0.0.1', localAddress: address })
  let connected = false
  socket.on('connect', () => {
    connected = true
    counts.connected++
    counts.open++
    if (plan.request) socket.write(plan.request.replaceAll('{address}', address).repeat(plan.pipeline ?? 1))
  })
  // Answers are read and dropped, as a keep-alive client would.
  socket.resume()
  if (plan.request && plan.repeatMs !== undefined) {
    socket.on('data', () => setTimeout(() => socket.writable && socket.write(plan.request!.replaceAll('{address}', address)), plan.repeatMs))
  }
  socket.on('error', () => counts.errors++)
  socket.on('close', () => {
    if (connected) counts.open--
    counts.closed++
    if (!stopping) setTimeout(() => hold(address), plan.reconnectMs ?? 0)
  })
}

for (const address of plan.addresses) for (let i = 0; i < plan.perAddress; i++) hold(address)

const report = setInterval(() => process.stdout.write(`${JSON.stringify(counts)}\n`), 100)
process.stdin.resume()
process.stdin.on('end', () => {
  stopping = true
  clearInterval(report)
  process.exit(0)
})
