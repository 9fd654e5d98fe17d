// JSON text serialised once and reused (a cached list), placed into an answer as it is.
// A top-level RawJson value of an envelope is spliced in by serializeEnvelope; anywhere
// else its toJSON() keeps JSON.stringify correct, only slower.

export class RawJson {
  readonly text: string

  constructor(text: string) {
    this.text = text
  }

  toJSON(): unknown {
    return JSON.parse(this.text)
  }
}

/** JSON.stringify for an envelope, splicing top-level RawJson values in without re-serialising. */
export function serializeEnvelope(body: Record<string, unknown>): string {
  const values = Object.values(body)
  if (!values.some((value) => value instanceof RawJson)) return JSON.stringify(body)
  const parts: string[] = []
  for (const [key, value] of Object.entries(body)) {
    if (value === undefined || typeof value === 'function') continue
    parts.push(`${JSON.stringify(key)}:${value instanceof RawJson ? value.text : JSON.stringify(value)}`)
  }
  return `{${parts.join(',')}}`
}
