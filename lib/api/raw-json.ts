// JSON serialised once and reused (a cached list), placed into an answer as it is. A
// top-level RawJson value of an envelope is spliced in by encodeEnvelope, and the whole
// answer around it is kept too while the envelope's other values stay the same: building an
// 11 KB answer for every poll was a fifth of its cost and most of its garbage. The kept
// answer keeps its UTF-8 bytes as well, which the HTTP host writes as they are: written as
// text, every answer was first joined to its header block (a new 11 KB string) and then
// encoded (another copy). Anywhere else toJSON() keeps JSON.stringify correct, only slower.

/** An answer's JSON, with its UTF-8 bytes when they were kept with it. */
export interface EncodedJson {
  text: string
  bytes: Buffer | undefined
}

export class RawJson {
  readonly text: string
  /** The last answer this value was framed into. */
  #framed: { before: string; after: string; answer: EncodedJson } | undefined

  constructor(text: string) {
    this.text = text
  }

  /** `before` + this + `after`, and its bytes; the same answer again for the same frame. */
  framed(before: string, after: string): EncodedJson {
    const last = this.#framed
    if (last?.before === before && last.after === after) return last.answer
    const text = before + this.text + after
    const answer = { text, bytes: Buffer.from(text) }
    this.#framed = { before, after, answer }
    return answer
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
  let hasRaw = false
  for (const key in body) if (body[key] instanceof RawJson) hasRaw = true
  if (!hasRaw) return { text: JSON.stringify(body), bytes: undefined }
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
  if (raws.length === 1) return raws[0].framed(texts[0], texts[1])
  return { text: raws.map((raw, i) => texts[i] + raw.text).join('') + texts.at(-1), bytes: undefined }
}
