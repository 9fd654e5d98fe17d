// JSON serialised once and reused (a cached list), placed into an answer as it is. A
// top-level RawJson value of an envelope is spliced in by serializeEnvelope, and the whole
// answer around it is kept too while the envelope's other values stay the same: building an
// 11 KB answer for every poll was a fifth of its cost and most of its garbage. Anywhere else
// its toJSON() keeps JSON.stringify correct, only slower.

export class RawJson {
  readonly text: string
  /** The last answer this value was framed into. */
  #framed: { before: string; after: string; text: string } | undefined

  constructor(text: string) {
    this.text = text
  }

  /** `before` + this + `after`; the same string again for the same frame. */
  framed(before: string, after: string): string {
    const last = this.#framed
    if (last?.before === before && last.after === after) return last.text
    const text = before + this.text + after
    this.#framed = { before, after, text }
    return text
  }

  toJSON(): unknown {
    return JSON.parse(this.text)
  }
}

/** JSON.stringify for an envelope, splicing top-level RawJson values in without re-serialising. */
export function serializeEnvelope(body: Record<string, unknown>): string {
  let hasRaw = false
  for (const key in body) if (body[key] instanceof RawJson) hasRaw = true
  if (!hasRaw) return JSON.stringify(body)
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
  return raws.map((raw, i) => texts[i] + raw.text).join('') + texts.at(-1)
}
