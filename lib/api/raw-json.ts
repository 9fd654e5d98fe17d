// JSON serialised once and reused (a cached list), placed into an answer as it is. A
// top-level RawJson value of an envelope is spliced in by encodeEnvelope, and the whole
// answer around it is kept too while the envelope's other values stay the same: building an
// 11 KB answer for every poll was a fifth of its cost and most of its garbage. The kept
// answer keeps its UTF-8 bytes as well, which the HTTP host writes as they are: written as
// text, every answer was first joined to its header block (a new 11 KB string) and then
// encoded (another copy). Anywhere else toJSON() keeps JSON.stringify correct, only slower.
// A poll whose envelope has the same plain values as the last one (status, codes, count) is
// recognised by comparing those values, before any text is built (issue 30: building and
// comparing the frame's text was most of what a kept answer still cost).

/** An answer's JSON, with its UTF-8 bytes when they were kept with it. */
export interface EncodedJson {
  text: string
  bytes: Buffer | undefined
  /** The Content-Length of a kept answer (its bytes' length as text), computed once. */
  contentLength?: string
}

/** The envelope a kept answer was framed from: its keys and values in order (this value at its place). */
interface Framing {
  keys: string[]
  values: unknown[]
}

export class RawJson {
  readonly text: string
  /** The last answer this value was framed into. */
  #framed: { before: string; after: string; answer: EncodedJson; framing: Framing | undefined } | undefined

  constructor(text: string) {
    this.text = text
  }

  /**
   * `before` + this + `after`, and its bytes; the same answer again for the same frame.
   * `body`, when given, is the envelope the frame was built from: keptFor() then knows it again.
   */
  framed(before: string, after: string, body?: Record<string, unknown>): EncodedJson {
    const last = this.#framed
    if (last?.before === before && last.after === after) {
      if (body && !last.framing) last.framing = this.#framingOf(body)
      return last.answer
    }
    const text = before + this.text + after
    const bytes = Buffer.from(text)
    const answer = { text, bytes, contentLength: String(bytes.length) }
    this.#framed = { before, after, answer, framing: body && this.#framingOf(body) }
    return answer
  }

  /**
   * The kept answer when `body` holds, key by key in the same order, the same plain values
   * (strings, numbers, booleans, null: their JSON is their value) and this value at the same
   * place as the envelope it was framed from; undefined otherwise (then the frame is built).
   */
  keptFor(body: Record<string, unknown>): EncodedJson | undefined {
    const framing = this.#framed?.framing
    if (!framing) return undefined
    const { keys, values } = framing
    let index = 0
    for (const key in body) {
      const value = body[key]
      if (value === undefined || typeof value === 'function') continue
      if (key !== keys[index] || value !== values[index]) return undefined
      index++
    }
    return index === keys.length ? this.#framed!.answer : undefined
  }

  /** The keys and values of an envelope whose values are all plain, or undefined. */
  #framingOf(body: Record<string, unknown>): Framing | undefined {
    const keys: string[] = []
    const values: unknown[] = []
    for (const key in body) {
      const value = body[key]
      if (value === undefined || typeof value === 'function') continue
      if (value !== this && value !== null && typeof value === 'object') return undefined
      keys.push(key)
      values.push(value)
    }
    return { keys, values }
  }

  toJSON(): unknown {
    return JSON.parse(this.text)
  }
}

/**
 * JSON.stringify for an envelope, splicing top-level RawJson values in without
 * re-serialising; with the bytes when the answer is a kept one (a single RawJson value).
 */
export function encodeEnvelope(body: Record<string, unknown>): EncodedJson {
  let raw: RawJson | undefined
  let rawCount = 0
  for (const key in body) {
    const value = body[key]
    if (value instanceof RawJson) {
      raw = value
      rawCount++
    }
  }
  if (!raw) return { text: JSON.stringify(body), bytes: undefined }
  const kept = rawCount === 1 ? raw.keptFor(body) : undefined
  if (kept) return kept
  // The text between the raw values: texts[i] comes before raws[i], the last one closes.
  const texts: string[] = []
  const raws: RawJson[] = []
  let text = '{'
  let first = true
  for (const key in body) {
    const value = body[key]
    if (value === undefined || typeof value === 'function') continue
    text += `${first ? '' : ','}${JSON.stringify(key)}:`
    first = false
    if (value instanceof RawJson) {
      texts.push(text)
      raws.push(value)
      text = ''
    } else {
      text += JSON.stringify(value)
    }
  }
  texts.push(`${text}}`)
  if (raws.length === 1) return raws[0].framed(texts[0], texts[1], body)
  return { text: raws.map((raw, i) => texts[i] + raw.text).join('') + texts.at(-1), bytes: undefined }
}
