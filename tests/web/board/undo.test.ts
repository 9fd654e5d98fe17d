import t from 'tap'
// @ts-expect-error: a plain browser ES module without types
import { PendingClears, undoWindowMs } from '../../../web/board/undo.js'

function harness(failWith?: Error) {
  let now = 0
  const timers = new Map<number, { at: number; fn: () => void }>()
  let nextId = 1
  const sent: { uuid: string; options?: unknown }[] = []
  const failed: string[] = []
  let changes = 0
  const pending = new PendingClears({
    send: async (order: { uuid: string }, options?: unknown) => {
      sent.push({ uuid: order.uuid, options })
      if (failWith) throw failWith
    },
    onChange: () => void changes++,
    onFailed: (order: { uuid: string }) => failed.push(order.uuid),
    now: () => now,
    setTimer: (fn: () => void, ms: number) => {
      timers.set(nextId, { at: now + ms, fn })
      return nextId++
    },
    clearTimer: (id: number) => timers.delete(id),
  })
  const advance = async (ms: number) => {
    now += ms
    for (const [id, timer] of [...timers]) {
      if (timer.at <= now) {
        timers.delete(id)
        timer.fn()
      }
    }
    await new Promise((resolve) => setImmediate(resolve))
  }
  return { pending, sent, failed, advance, changes: () => changes }
}

t.test('a clear is sent when the undo window ends, not before', async (t) => {
  const { pending, sent, advance } = harness()
  pending.start({ uuid: 'a' })
  pending.start({ uuid: 'a' })
  t.ok(pending.has('a'))
  t.equal(pending.secondsLeft('a'), undoWindowMs / 1000)
  await advance(undoWindowMs - 1)
  t.same(sent, [], 'still in the window')
  t.equal(pending.secondsLeft('a'), 1)
  await advance(1)
  t.same(sent, [{ uuid: 'a', options: undefined }], 'sent once')
  t.notOk(pending.has('a'))
  t.equal(pending.secondsLeft('a'), 0)
})

t.test('undo takes the clear back; forget drops it silently', async (t) => {
  const { pending, sent, advance, changes } = harness()
  pending.start({ uuid: 'a' })
  pending.start({ uuid: 'b' })
  t.equal(pending.undo('a'), true)
  t.equal(pending.undo('a'), false, 'nothing left to undo')
  pending.forget('b')
  pending.forget('zzz')
  await advance(undoWindowMs * 2)
  t.same(sent, [])
  t.equal(changes(), 3, 'two starts and an undo redraw the board')
})

t.test('closing the page sends every pending clear with keepalive; a failure is reported', async (t) => {
  const { pending, sent, failed } = harness(new Error('gateway down'))
  pending.start({ uuid: 'a' })
  pending.start({ uuid: 'b' })
  pending.flush()
  await new Promise((resolve) => setImmediate(resolve))
  t.same(
    sent.map((s) => s.options),
    [{ keepalive: true }, { keepalive: true }],
  )
  t.same(failed, ['a', 'b'])
})
