// Opt-in beeps (WebAudio, no sound files): two high tones when an order turns late, one low
// tone when a page fails. Browsers allow sound only after a tap on the page, so the audio
// context is created or resumed on the first tap after the toggle is on.
const storageKey = 'trackerGateway.sound'

export function createSound(storage = localStorage) {
  let enabled = storage.getItem(storageKey) === 'on'
  let context = null

  function unlock() {
    if (!enabled) return
    context ??= new AudioContext()
    if (context.state === 'suspended') void context.resume()
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
    unlock,
    /** @param {'late' | 'failed'} kind */
    beep(kind) {
      if (!enabled || !context || context.state !== 'running') return false
      if (kind === 'late') {
        tone(988, 0, 0.18)
        tone(988, 0.25, 0.18)
      } else {
        tone(330, 0, 0.45)
      }
      return true
    },
    toggle() {
      enabled = !enabled
      storage.setItem(storageKey, enabled ? 'on' : 'off')
      unlock()
      return enabled
    },
  }
}
