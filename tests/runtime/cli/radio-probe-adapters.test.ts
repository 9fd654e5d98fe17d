// `gateway radio probe` with herdsman's REAL deCONZ, ZBOSS and ZiGate adapters on a silent
// pseudo-terminal, and a Z-Stack coordinator on the network (tcp://) that accepts the
// connection but never answers, or refuses it. Each start ends by the adapter's own failure
// (deCONZ gives up after about 20 s): the probe's limit runs on a manual clock that never
// moves, so on a busy machine it cannot end a start first, and the verdict is made from the
// adapter's words: a silent deCONZ stick was told its firmware was too old, and a network
// coordinator was given baud-rate advice.
import net from 'node:net'
import t, { type Test } from 'tap'
import { parseConfig } from '../../../lib/config.ts'
import { probeRadio } from '../../../runtime/cli/radio-probe.ts'
import { PseudoTerminal } from '../../helpers/pty.ts'
import { ManualClock } from '../../helpers/manual-clock.ts'

// Each start mostly waits for its adapter to give up: they run side by side.
t.jobs = 4

function probe(t: Test, radio: Record<string, unknown>) {
  const config = parseConfig({ dataDir: t.testdir(), radio: { kind: 'zigbee', ...radio } })
  return probeRadio({ config, timeoutMs: 45_000, list: async () => [], process: { clock: new ManualClock() } })
}

async function stick(t: Test): Promise<PseudoTerminal> {
  const terminal = await PseudoTerminal.open()
  t.teardown(() => terminal.close())
  return terminal
}

t.test('deCONZ, silent: the speeds deCONZ sticks use, not "firmware too old"', async (t) => {
  const terminal = await stick(t)
  const result = await probe(t, { adapter: 'deconz', serialPort: terminal.device })
  t.equal(result.ok, false)
  t.match(result.verdict, new RegExp(`^no answer at 38400 baud from ${terminal.device}: deCONZ sticks speak 38400 baud`))
  t.notMatch(result.verdict, /firmware too old/)
})

for (const adapter of ['zboss', 'zigate']) {
  t.test(`${adapter}, silent: the no-answer line, not the raw error`, async (t) => {
    const terminal = await stick(t)
    const result = await probe(t, { adapter, serialPort: terminal.device })
    t.match(result.verdict, new RegExp(`^no answer at 115200 baud from ${terminal.device}: wrong baud rate`))
    t.notMatch(result.verdict, /commandId|ziGateObject/)
  })
}

t.test('a network coordinator that does not answer, and one that refuses: no baud rate in the advice', async (t) => {
  const sockets = new Set<net.Socket>()
  const server = net.createServer((socket) => void sockets.add(socket.on('error', () => {})))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    for (const socket of sockets) socket.destroy()
    return new Promise((resolve) => server.close(resolve))
  })
  const { port } = server.address() as net.AddressInfo
  const silent = await probe(t, { adapter: 'zstack', serialPort: `tcp://127.0.0.1:${port}` })
  t.match(silent.verdict, new RegExp(`^no answer from tcp://127\\.0\\.0\\.1:${port}: is the coordinator switched on`))
  t.notMatch(silent.verdict, /baud/)

  const closed = net.createServer()
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
  const closedPort = (closed.address() as net.AddressInfo).port
  await new Promise((resolve) => closed.close(resolve))
  const refused = await probe(t, { adapter: 'zstack', serialPort: `tcp://127.0.0.1:${closedPort}` })
  t.match(refused.verdict, /^(connection refused by|no answer from) tcp:/)
  t.notMatch(refused.verdict, /baud/)
})
