// The contract a function file is written against (runtime/host/function-types.ts: its ctx,
// and ctx.services typed by runtime/host/function-services.ts) depends on lib's types, never
// on the composition root: no function file reaches runtime/wiring/ through its imports,
// type-only ones included. How far a function file's imports reach (files and depth) is
// measured and printed, so a change that drags the contract deeper shows.
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { readImportGraph, type ImportGraph } from './import-graph.ts'

const root = fileURLToPath(new URL('../..', import.meta.url))

/** Every file a file's imports reach, with its depth (the shortest chain of imports to it). */
export function reach(graph: ImportGraph, start: string): Map<string, number> {
  const depth = new Map([[start, 0]])
  const queue = [start]
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    for (const next of graph.get(file) ?? []) {
      if (depth.has(next)) continue
      depth.set(next, depth.get(file)! + 1)
      queue.push(next)
    }
  }
  return depth
}

/** The chain of imports by which `start` reaches `target` (for the failure message). */
function chain(graph: ImportGraph, start: string, target: string): string[] {
  const previous = new Map<string, string>()
  const queue = [start]
  for (let file = queue.shift(); file !== undefined && file !== target; file = queue.shift()) {
    for (const next of graph.get(file) ?? []) {
      if (previous.has(next) || next === start) continue
      previous.set(next, file)
      queue.push(next)
    }
  }
  const path = [target]
  while (path[0] !== start && previous.has(path[0]!)) path.unshift(previous.get(path[0]!)!)
  return path
}

t.test('no function file reaches the composition root (runtime/wiring/) through its imports', async (t) => {
  const graph = readImportGraph(root, ['lib', 'functions', 'runtime'])
  const functionFiles = [...graph.keys()].filter((file) => file.startsWith('functions/') && !file.startsWith('functions/_'))
  t.ok(functionFiles.length > 50, `${functionFiles.length} function files`)
  const contract = reach(graph, 'runtime/host/function-types.ts')
  t.same(
    [...contract.keys()].filter((file) => file.startsWith('runtime/wiring/')),
    [],
    'the contract itself',
  )
  let widest = { file: '', files: 0, depth: 0 }
  for (const file of functionFiles) {
    const reached = reach(graph, file)
    const wiring = [...reached.keys()].find((other) => other.startsWith('runtime/wiring/'))
    if (wiring) t.fail(`${file} reaches ${wiring}: ${chain(graph, file, wiring).join(' -> ')}`)
    if (reached.size > widest.files) widest = { file, files: reached.size, depth: Math.max(...reached.values()) }
  }
  t.comment(
    `the contract (function-types.ts) reaches ${contract.size} files, ${Math.max(...contract.values())} imports deep; the widest function file, ${widest.file}, ${widest.files} files, ${widest.depth} deep`,
  )
})

t.test('reach() gives each file its shortest import depth', async (t) => {
  const graph: ImportGraph = new Map([
    ['a', new Set(['b', 'c'])],
    ['b', new Set(['d'])],
    ['c', new Set(['d', 'e'])],
    ['d', new Set(['a'])],
    ['e', new Set()],
  ])
  t.same(Object.fromEntries(reach(graph, 'a')), { a: 0, b: 1, c: 1, d: 2, e: 2 })
  t.same(chain(graph, 'a', 'e'), ['a', 'c', 'e'])
})
