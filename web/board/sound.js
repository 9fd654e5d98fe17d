// Opt-in beeps (WebAudio, no sound files): two high tones for a late order, one low tone when
// a page fails. Browsers keep audio suspended until someone taps the page (unless the screen
// was started with an autoplay flag, deploy/kiosk/), and a reload forgets the tap, so the
// board must know when its sound is blocked and say so: `status` is 'off', 'starting' (a
// resume is under way), 'on' (the audio runs) or 'blocked' (switched on, but the browser has
// not let the audio start within `graceMs`). onChange fires whenever the status may differ.
const storageKey = 'trackerGateway.sound'

/**
 * @param {{ getItem(key: string): string | null, setItem(key: string, value: string): void }} storage
 * @param {{ onChange?: () => void, graceMs?: number, setTimer?: (fn: () => void, ms: number) => unknown }} options
 */
export function createSound(storage = localStorage, { onChange = () => {}, graceMs = 600, setTimer = (fn, ms) => setTimeout(fn, ms) } = {}) {
  let enabled = storage.getItem(storageKey) === 'on'
  let context = null
  /** When the last resume was asked for (null: none pending). */
  let askedAt = null
  let refused = false

  const running = () => context?.state === 'running'

  function status() {
    if (!enabled) return 'off'
    if (running()) return 'on'
    if (!refused && askedAt !== null) return 'starting'
    return 'blocked'
  }

  /** Asks the browser to start the audio: on load, and on every tap or key while not running. */
  function unlock() {
    if (!enabled || running()) return
    if (!context) {
      context = new AudioContext()
      context.addEventListener?.('statechange', () => onChange())
    }
    if (running()) return onChange()
    refused = false
    askedAt = Date.now()
    // Chromium leaves the promise pending while it blocks audio; some browsers reject it.
    context.resume().then(
      () => onChange(),
      () => {
        refused = true
        onChange()
      },
    )
    setTimer(() => {
      if (!running()) refused = true
      onChange()
    }, graceMs)
    onChange()
  }

  function tone(frequency, startSeconds, lengthSeconds) {
    const oscillator = context.createOscillator()
    const gain = context.createGain()
    oscillator.frequency.value = frequency
    gain.gain.setValueAtTime(0.0001, context.currentTime + startSeconds)
    gain.gain.exponentialRampToValueAtTime(0.4, context.currentTime + startSeconds + 0.02)
    gain.gain.exponentialRampToValueAtTime(0.0001, context.currentTime + startSeconds + lengthSeconds)
    oscillator.connect(gain).connect(context.destination)
    oscillator.start(context.currentTime + startSeconds)
    oscillator.stop(context.currentTime + startSeconds + lengthSeconds + 0.05)
  }

  return {
    get enabled() {
      return enabled
    },
    get status() {
      return status()
    },
    unlock,
    /**
     * late: two high tones; very-late (the second stage): three higher, faster ones; offline:
     * a falling two-note siren; failed: one low tone.
     * @param {'late' | 'very-late' | 'offline' | 'failed'} kind  @returns {boolean} whether a tone was played
     */
    beep(kind) {
      if (!enabled || !running()) return false
      if (kind === 'late') {
        tone(988, 0, 0.18)
        tone(988, 0.25, 0.18)
      } else if (kind === 'very-late') {
        for (const at of [0, 0.16, 0.32]) tone(1319, at, 0.12)
      } else if (kind === 'offline') {
        for (const at of [0, 0.8]) {
          tone(660, at, 0.35)
          tone(440, at + 0.38, 0.35)
        }
      } else {
        tone(330, 0, 0.45)
      }
      return true
    },
    toggle() {
      enabled = !enabled
      storage.setItem(storageKey, enabled ? 'on' : 'off')
      unlock()
      onChange()
      return enabled
    },
  }
}
