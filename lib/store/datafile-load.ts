// Reading a collection's datafile into its documents. The file is a log in NeDB's line
// format, so data dirs written by NeDB itself (before lib/store kept the file) load the
// same: each line is one JSON document; a line with an `_id` sets that document, one that
// also has `"$$deleted": true` removes it; NeDB's `$$indexCreated` / `$$indexRemoved` lines
// are skipped (indexes are declared in code: Store.collection). Lines that do not parse can
// only come from an append a crash or a full disk cut short; any number of them is dropped.
// Lines end at '\n' only: JSON escapes every other line break inside a document except
// U+2028/U+2029, at which NeDB's reader split a document in two and lost it.
import { createReadStream } from 'node:fs'
import model from '@seald-io/nedb/lib/model.js'
import { recoverReplacement } from './replace-file.ts'

export interface DatafileContent {
  /** The live documents, one per `_id`. */
  docs: object[]
  /** Lines dropped because they did not parse (torn). */
  unreadable: number
}

/** Reads `file` (none yet: no documents), recovering an interrupted rewrite first. */
export async function readDatafile(file: string): Promise<DatafileContent> {
  await recoverReplacement(file)
  const byId = new Map<string, object>()
  let unreadable = 0
  const take = (line: string) => {
    if (!readLine(line, byId)) unreadable++
  }
  let rest = ''
  try {
    for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
      const text = rest + (chunk as string)
      const end = text.lastIndexOf('\n')
      if (end === -1) {
        rest = text
        continue
      }
      for (const line of text.slice(0, end).split('\n')) take(line)
      rest = text.slice(end + 1)
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  // A last line without its '\n' is whole if it parses (an append writes line and '\n' together).
  take(rest)
  return { docs: [...byId.values()], unreadable }
}

/** Applies one line to the documents; false if it does not parse. */
function readLine(line: string, byId: Map<string, object>): boolean {
  if (line === '') return true
  let doc: unknown
  try {
    doc = parse(line)
  } catch {
    return false
  }
  if (typeof doc !== 'object' || doc === null) return false
  const { _id: id, $$deleted: deleted } = doc as { _id?: unknown; $$deleted?: unknown }
  // Keyed as NeDB keyed them (an object's key: the id as a string).
  if (id) {
    if (deleted === true) byId.delete(String(id))
    else byId.set(String(id), doc)
  }
  return true
}

/**
 * NeDB's deserialiser revives {"$$date":…} through a reviver called for every value; plain
 * JSON.parse gives the same document at a fraction of the cost when the line cannot hold a
 * date (JSON.stringify writes `$` unescaped, so a date's key shows in the text).
 */
function parse(line: string): unknown {
  return line.includes('$date') || line.includes('\\u') ? model.deserialize(line) : JSON.parse(line)
}
