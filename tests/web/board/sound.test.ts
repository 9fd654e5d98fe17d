import t from 'tap'
// @ts-expect-error: a plain browser ES module without types
import { createSound } from '../../../web/board/sound.js'

/** Stand-ins for the WebAudio nodes: they record the tones asked for. */
class FakeAudioContext {
  static made = 0
  static last: FakeAudioContext | undefined
  state = 'suspended'
  currentTime = 0
  destination = {}
  tones: number[] = []
  constructor() {
    FakeAudioContext.made += 1
    FakeAudioContext.last = this
  }
  async resume() {
    this.state = 'running'
  }
  createOscillator() {
    const context = this
    return {
      frequency: { value: 0 },
      connect: (gain: object) => gain,
      start() {
        context.tones.push(this.frequency.value)
      },
      stop() {},
    }
  }
  createGain() {
    const ramp = () => undefined
    return { gain: { setValueAtTime: ramp, exponentialRampToValueAtTime: ramp }, connect: (target: object) => target }
  }
}

function memoryStorage(initial: Record<string, string> = {}) {
  const values = new Map(Object.entries(initial))
  return { getItem: (key: string) => values.get(key) ?? null, setItem: (key: string, value: string) => void values.set(key, value) }
}

t.test('off until switched on; beeps only once the audio is unlocked by a tap', async (t) => {
  ;(globalThis as { AudioContext?: unknown }).AudioContext = FakeAudioContext
  t.teardown(() => delete (globalThis as { AudioContext?: unknown }).AudioContext)
  const storage = memoryStorage()
  const sound = createSound(storage)
  t.equal(sound.enabled, false, 'off by default')
  sound.unlock()
  t.equal(FakeAudioContext.made, 0, 'no audio while off')
  t.equal(sound.beep('late'), false)
  t.equal(sound.toggle(), true)
  t.equal(storage.getItem('trackerGateway.sound'), 'on', 'the choice is kept')
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(sound.beep('late'), true, 'the toggle tap unlocked the audio')
  t.equal(sound.beep('failed'), true)
  t.equal(sound.toggle(), false)
  t.equal(sound.beep('late'), false, 'silent once switched off')
  t.equal(createSound(memoryStorage({ 'trackerGateway.sound': 'on' })).enabled, true, 'on after a reload when it was on')
})

t.test('late is two high tones, a failed page one low tone', async (t) => {
  ;(globalThis as { AudioContext?: unknown }).AudioContext = FakeAudioContext
  t.teardown(() => delete (globalThis as { AudioContext?: unknown }).AudioContext)
  const sound = createSound(memoryStorage({ 'trackerGateway.sound': 'on' }))
  sound.unlock()
  await new Promise((resolve) => setImmediate(resolve))
  sound.beep('late')
  sound.beep('failed')
  t.same(FakeAudioContext.last?.tones, [988, 988, 330])
})

/** An AudioContext the browser keeps suspended: resume() never settles (Chromium without a tap). */
class BlockedAudioContext extends FakeAudioContext {
  override resume() {
    return new Promise<void>(() => {})
  }
}

t.test('blocked audio is reported, not hidden behind "Sound on"', async (t) => {
  ;(globalThis as { AudioContext?: unknown }).AudioContext = BlockedAudioContext
  t.teardown(() => delete (globalThis as { AudioContext?: unknown }).AudioContext)
  const timers: Array<() => void> = []
  let changes = 0
  const sound = createSound(memoryStorage({ 'trackerGateway.sound': 'on' }), { onChange: () => (changes += 1), setTimer: (fn: () => void) => timers.push(fn) })
  t.equal(sound.status, 'blocked', 'on, never started: blocked')
  sound.unlock()
  t.equal(sound.status, 'starting', 'a resume under way')
  timers.shift()!()
  t.equal(sound.status, 'blocked', 'the browser did not let it start')
  t.ok(changes >= 2, 'the screen heard of each change')
  t.equal(sound.beep('late'), false, 'no tone while blocked')
  // A tap: this time the browser lets it run.
  const context = FakeAudioContext.last!
  context.state = 'running'
  sound.unlock()
  t.equal(sound.status, 'on')
  t.equal(sound.beep('late'), true)
  t.equal(createSound(memoryStorage()).status, 'off')
})

t.test('a resume the browser rejects is blocked at once', async (t) => {
  class RejectingAudioContext extends FakeAudioContext {
    override resume() {
      return Promise.reject(new Error('NotAllowedError'))
    }
  }
  ;(globalThis as { AudioContext?: unknown }).AudioContext = RejectingAudioContext
  t.teardown(() => delete (globalThis as { AudioContext?: unknown }).AudioContext)
  const sound = createSound(memoryStorage({ 'trackerGateway.sound': 'on' }), { setTimer: () => undefined })
  sound.unlock()
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(sound.status, 'blocked')
})
