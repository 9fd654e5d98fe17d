import { pino } from 'pino'
import t from 'tap'
import { HoldingDestination, heldMs, holdLimit } from '../../../lib/kernel/log-destination.ts'
import { createLogger } from '../../../lib/kernel/log.ts'
import { ManualClock } from '../../helpers/manual-clock.ts'

function recording(clock = new ManualClock()) {
  const writes: string[] = []
  return { writes, clock, destination: new HoldingDestination({ write: (text: string) => void writes.push(text) }, clock) }
}

t.test('held lines go out together once heldMs has passed (on the clock)', async (t) => {
  const { writes, destination, clock } = recording()
  destination.hold('a\n')
  destination.hold('b\n')
  t.same(writes, [], 'nothing written yet')
  await clock.advance(heldMs - 1)
  t.same(writes, [], 'nor just before heldMs')
  await clock.advance(1)
  t.same(writes, ['a\nb\n'], 'one write for both')
  t.equal(clock.pending, 0, 'no timer left behind')
  await clock.advance(heldMs * 2)
  t.same(writes, ['a\nb\n'], 'and nothing more')
})

t.test('a line written the ordinary way releases the held ones first, keeping the order', async (t) => {
  const writes: string[] = []
  const log = createLogger({ level: 'info', destination: { write: (text: string) => void writes.push(text) } })
  const destination = (log as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] as HoldingDestination
  t.ok(destination instanceof HoldingDestination, 'createLogger writes through a holding destination')
  destination.hold('{"msg":"held"}\n')
  log.warn('ordinary')
  t.equal(writes.length, 2)
  t.equal(writes[0], '{"msg":"held"}\n')
  t.match(JSON.parse(writes[1]), { msg: 'ordinary', level: 40 })
})

t.test('holdLimit characters go out at once', async (t) => {
  const { writes, destination } = recording()
  const line = `${'x'.repeat(1023)}\n`
  for (let i = 0; i < holdLimit / line.length - 1; i++) destination.hold(line)
  t.same(writes, [], 'below the limit: still held')
  destination.hold(line)
  t.equal(writes.length, 1)
  t.equal(writes[0].length, holdLimit)
})

t.test('flush releases the held lines, then flushes the target', async (t) => {
  const events: string[] = []
  const destination = new HoldingDestination({
    write: (text: string) => void events.push(`write ${text.trim()}`),
    flush: (callback: (error?: Error) => void) => {
      events.push('target flush')
      callback()
    },
  } as never)
  destination.hold('held\n')
  await new Promise<void>((resolve) => destination.flush(() => resolve()))
  t.same(events, ['write held', 'target flush'])
  destination.flush()
  t.same(events, ['write held', 'target flush', 'target flush'], 'nothing held: only the target')
  const { writes, destination: plain } = recording()
  plain.hold('line\n')
  let called = false
  plain.flush(() => (called = true))
  t.same(writes, ['line\n'])
  t.ok(called, 'a target without flush still calls back')
})
