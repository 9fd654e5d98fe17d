// Which bad requests (status 400 and above) the request log writes (issue 41: a line per bad
// request let one client write megabytes a second into the journal). Per client address and
// per minute: the first `burst` are written, then only the one that doubles the count (the
// 20th, 40th, 80th, ...), each with the address and how many bad requests it has made in the
// minute so far; so 10,000 bad requests from one address make about 20 lines, and an
// operator still sees who it was and how many. The addresses remembered are bounded: past
// maxAddresses the memory starts over (a flood of addresses gets each its first lines again).

export interface SamplerLimits {
  windowMs: number
  burst: number
  maxAddresses: number
}

export const defaultSamplerLimits: SamplerLimits = { windowMs: 60_000, burst: 10, maxAddresses: 4096 }

interface Window {
  startedAt: number
  count: number
  /** The count at which the next line is written. */
  nextLogged: number
}

export class BadRequestSampler {
  readonly #limits: SamplerLimits
  readonly #now: () => number
  readonly #windows = new Map<string, Window>()

  constructor(limits: Partial<SamplerLimits> = {}, now: () => number = Date.now) {
    this.#limits = { ...defaultSamplerLimits, ...limits }
    this.#now = now
  }

  /** Counts a bad request from `address`: its count in the window when it is to be logged, else 0. */
  count(address: string): number {
    const now = this.#now()
    let window = this.#windows.get(address)
    if (!window || now - window.startedAt >= this.#limits.windowMs) {
      if (!window && this.#windows.size >= this.#limits.maxAddresses) this.#windows.clear()
      window = { startedAt: now, count: 0, nextLogged: 1 }
      this.#windows.set(address, window)
    }
    window.count++
    if (window.count < window.nextLogged) return 0
    const { burst } = this.#limits
    window.nextLogged = window.count < burst ? window.count + 1 : window.count * 2
    return window.count
  }
}
