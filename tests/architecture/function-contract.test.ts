// The contract a function file is written against (runtime/host/function-types.ts: its ctx,
// and ctx.services typed by runtime/host/function-services.ts) depends on types files only
// (data shapes: lib/<domain>/types.ts and the like), never on a service, the radio or the
// composition root: no function file reaches runtime/wiring/ through its imports, type-only
// ones included. How far the contract's imports reach, and how far each function file's
// type-only imports reach, is held to the figures below, so a change that drags a service or
// the wiring into the contract fails here (raise a limit only with a reason).
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { readImportGraph, type ImportGraph } from './import-graph.ts'

const root = fileURLToPath(new URL('../..', import.meta.url))

/**
 * What the contract may reach: function-types.ts, function-services.ts, lib/api/wire-types.ts
 * and function-config.ts, and the types files of the shapes the services answer with (104
 * files 6 deep when ctx.services was typed by the service classes). 25 since the gateway's
 * status shows the last upgrade (lib/release/summary.ts, one more domain's data-only shapes).
 */
export const contractLimit = { files: 25, depth: 3 }
/** What a function file's type-only imports may reach: today the contract's files, since every answer is made of its shapes. */
export const typeImportsLimit = 25

/** The files a file names in its `import type` statements (relative ones), as paths from the root. */
export function typeImportsOf(file: string, text: string): string[] {
  const targets: string[] = []
  for (const match of text.matchAll(/^import type [^;]*? from '(\.[^']+)'/gm)) {
    targets.push(path.posix.normalize(path.posix.join(path.posix.dirname(file), match[1]!)))
  }
  return targets
}

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
  t.ok(contract.size <= contractLimit.files, `the contract reaches ${contract.size} files (at most ${contractLimit.files}): ${[...contract.keys()].join(', ')}`)
  const contractDepth = Math.max(...contract.values())
  t.ok(contractDepth <= contractLimit.depth, `the contract's imports go ${contractDepth} deep (at most ${contractLimit.depth})`)
  let widest = { file: '', files: 0, depth: 0 }
  let widestTypes = { file: '', files: 0 }
  for (const file of functionFiles) {
    const reached = reach(graph, file)
    const wiring = [...reached.keys()].find((other) => other.startsWith('runtime/wiring/'))
    if (wiring) t.fail(`${file} reaches ${wiring}: ${chain(graph, file, wiring).join(' -> ')}`)
    if (reached.size > widest.files) widest = { file, files: reached.size, depth: Math.max(...reached.values()) }
    const typeReach = new Set<string>()
    for (const target of typeImportsOf(file, readFileSync(path.join(root, file), 'utf8'))) for (const other of reach(graph, target).keys()) typeReach.add(other)
    if (typeReach.size > typeImportsLimit)
      t.fail(`${file}'s type imports reach ${typeReach.size} files (at most ${typeImportsLimit}): ${[...typeReach].join(', ')}`)
    if (typeReach.size > widestTypes.files) widestTypes = { file, files: typeReach.size }
  }
  t.comment(
    `the contract (function-types.ts) reaches ${contract.size} files, ${contractDepth} imports deep; the widest type imports, ${widestTypes.file}'s, ${widestTypes.files} files; the widest function file with its value imports, ${widest.file}, ${widest.files} files, ${widest.depth} deep`,
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

t.test('typeImportsOf reads the relative type-only imports of a file', async (t) => {
  const text = [
    "import { createBody } from '../../lib/api/order-input.ts'",
    "import type { FunctionConfig, GatewayFunction } from '../../runtime/host/function-types.ts'",
    "import type { Settings } from '../../lib/settings/types.ts'",
    "import type { JWK } from 'jose'",
  ].join('\n')
  t.same(typeImportsOf('functions/v2/x.get.ts', text), ['runtime/host/function-types.ts', 'lib/settings/types.ts'])
})
