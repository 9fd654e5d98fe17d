// NeDB's line serialiser, used by datafile.ts so appended lines are exactly NeDB's own.
declare module '@seald-io/nedb/lib/model.js' {
  const model: { serialize(document: unknown): string }
  export default model
}
