import t from 'tap'
// @ts-expect-error: a plain browser ES module without types
import { waitForApproval } from '../../../web/board/pairing.js'

/** A scripted gateway: answers in order, recording the requests. */
function scripted(answers: Array<[number, unknown]>) {
  const requests: string[] = []
  const fetchImpl = async (url: string, init?: { method?: string }) => {
    requests.push(`${init?.method ?? 'GET'} ${url}`)
    const [status, body] = answers.shift()!
    return { status, ok: status < 300, json: async () => body }
  }
  return { requests, fetchImpl }
}
const now = (fn: () => void) => void setImmediate(fn)

t.test('shows the code, polls, hands over the token once approved', async (t) => {
  const { requests, fetchImpl } = scripted([
    [201, { pairing: { id: 'ab'.repeat(16), code: 'K7QM-4XTP' } }],
    [200, { pairing: { state: 'waiting' } }],
    [200, { pairing: { state: 'approved' }, token: { token: 'c'.repeat(48) } }],
  ])
  const shown: Array<[string | null, string]> = []
  let token = ''
  const flow = waitForApproval({
    name: 'board-x',
    fetchImpl,
    setTimer: now,
    show: (code: string | null, status: string) => shown.push([code, status]),
    onToken: (value: string) => (token = value),
  })
  await flow.done
  t.equal(token, 'c'.repeat(48))
  t.same(requests, ['POST /api/v2/board/pairing', `GET /api/v2/board/pairing/${'ab'.repeat(16)}`, `GET /api/v2/board/pairing/${'ab'.repeat(16)}`])
  t.equal(shown[0]![0], 'K7QM-4XTP')
})

t.test('an expired code or a refusal is said on screen', async (t) => {
  const expired = scripted([
    [201, { pairing: { id: 'cd'.repeat(16), code: 'AAAA-BBBB' } }],
    [404, { returnCode: -43 }],
  ])
  const shown: string[] = []
  await waitForApproval({
    name: 'x',
    fetchImpl: expired.fetchImpl,
    setTimer: now,
    show: (_code: unknown, status: string) => shown.push(status),
    onToken: () => t.fail('no token'),
  }).done
  t.match(shown.at(-1), /expired/)
  const refused = scripted([[429, { message: 'Too many screens are waiting for a code; retry later' }]])
  const said: string[] = []
  await waitForApproval({
    name: 'x',
    fetchImpl: refused.fetchImpl,
    setTimer: now,
    show: (_code: unknown, status: string) => said.push(status),
    onToken: () => t.fail('no token'),
  }).done
  t.same(said, ['Too many screens are waiting for a code; retry later'])
})

t.test('stopping ends the polling', async (t) => {
  const { requests, fetchImpl } = scripted([[201, { pairing: { id: 'ef'.repeat(16), code: 'AAAA-BBBB' } }]])
  let fire: (() => void) | null = null
  const flow = waitForApproval({ name: 'x', fetchImpl, setTimer: (fn: () => void) => (fire = fn), show: () => {}, onToken: () => t.fail('no token') })
  await new Promise((resolve) => setImmediate(resolve))
  flow.stop()
  fire!()
  await flow.done
  t.equal(requests.length, 1, 'no poll after stop')
})

t.test('a gateway out of reach for a moment: it keeps asking', async (t) => {
  const answers: Array<() => Promise<unknown>> = [
    async () => ({ status: 201, ok: true, json: async () => ({ pairing: { id: 'aa'.repeat(16), code: 'AAAA-BBBB' } }) }),
    async () => {
      throw new TypeError('Failed to fetch')
    },
    async () => ({ status: 200, ok: true, json: async () => ({ pairing: { state: 'approved' }, token: { token: 'd'.repeat(48) } }) }),
  ]
  let token = ''
  await waitForApproval({ name: 'x', fetchImpl: () => answers.shift()!(), setTimer: now, show: () => {}, onToken: (value: string) => (token = value) }).done
  t.equal(token, 'd'.repeat(48))
})

t.test('asking for a new code names the old request, so the gateway drops it instead of adding one', async (t) => {
  const bodies: unknown[] = []
  const answers: Array<[number, unknown]> = [
    [201, { pairing: { id: 'aa'.repeat(16), code: 'AAAA-BBBB' } }],
    [201, { pairing: { id: 'bb'.repeat(16), code: 'CCCC-DDDD' } }],
  ]
  const fetchImpl = async (_url: string, init?: { body?: string }) => {
    bodies.push(JSON.parse(init?.body ?? 'null'))
    const [status, body] = answers.shift()!
    return { status, ok: status < 300, json: async () => body }
  }
  const idle = () => {}
  // The flows wait for approval (their polls never fire here): wait until the code is shown.
  const shown = async (flow: { id: string | null }) => {
    for (let turn = 0; flow.id === null && turn < 1000; turn++) await new Promise((resolve) => setImmediate(resolve))
  }
  const first = waitForApproval({ name: 'board-x', fetchImpl, setTimer: idle, show: idle, onToken: () => t.fail('no token') })
  t.equal(first.id, null, 'no id before the gateway answers')
  await shown(first)
  t.equal(first.id, 'aa'.repeat(16))
  first.stop()
  const second = waitForApproval({ name: 'board-x', replaces: first.id, fetchImpl, setTimer: idle, show: idle, onToken: () => t.fail('no token') })
  await shown(second)
  second.stop()
  t.same(bodies, [{ name: 'board-x' }, { name: 'board-x', replaces: 'aa'.repeat(16) }])
  t.equal(second.id, 'bb'.repeat(16))
})
