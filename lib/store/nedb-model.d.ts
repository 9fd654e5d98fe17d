// NeDB's line format, used by datafile.ts (writing) and datafile-load.ts (reading) so the
// datafile's lines are exactly NeDB's own: dates as {"$$date":…}, undefined dropped.
declare module '@seald-io/nedb/lib/model.js' {
  const model: {
    serialize(document: unknown): string
    /** Throws on a line that is not JSON (a torn one). */
    deserialize(line: string): unknown
  }
  export default model
}
