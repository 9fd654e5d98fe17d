// Reads the import graph of the product code (lib/, functions/, runtime/) and checks it
// against the layer map in tests/architecture/layers.ts. Static `import`/`export ... from`
// (type-only included) and dynamic `import('./relative')` with a literal path count as edges;
// packages (`node:*`, `ws`, ...) are not part of the graph.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, normalize, sep } from 'node:path'

/** from -> the set of repository-relative files it imports. */
export type ImportGraph = Map<string, Set<string>>

const STATIC = /(?:^|[;\s}])(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?['"]([^'"]+)['"]/g
const DYNAMIC = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g

/** Comments out of the way so an import in a comment is not an edge (strings are left alone). */
export function stripComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"\w])\/\/.*$/gm, '$1')
}

/** The relative specifiers a source file imports (statically or with a literal dynamic import). */
export function importSpecifiers(source: string): string[] {
  const text = stripComments(source)
  const found: string[] = []
  for (const pattern of [STATIC, DYNAMIC]) {
    for (const match of text.matchAll(pattern)) found.push(match[1]!)
  }
  return found.filter((spec) => spec.startsWith('.'))
}

function listTs(root: string, dir: string, out: string[]): void {
  for (const name of readdirSync(join(root, dir))) {
    const path = join(dir, name)
    if (statSync(join(root, path)).isDirectory()) listTs(root, path, out)
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path.split(sep).join('/'))
  }
}

/** The graph of every .ts file under `dirs` (relative to `root`), edges limited to files in the graph's roots. */
export function readImportGraph(root: string, dirs: readonly string[]): ImportGraph {
  const files: string[] = []
  for (const dir of dirs) listTs(root, dir, files)
  const graph: ImportGraph = new Map()
  for (const file of files) {
    const edges = new Set<string>()
    for (const spec of importSpecifiers(readFileSync(join(root, file), 'utf8'))) {
      const target = normalize(join(dirname(file), spec.split('?')[0]!))
        .split(sep)
        .join('/')
      if (!target.startsWith('..') && dirs.some((dir) => target.startsWith(`${dir}/`))) edges.add(target)
    }
    graph.set(file, edges)
  }
  return graph
}

/** Strongly connected components with more than one file (or a file importing itself): the import cycles. */
export function findCycles(graph: ImportGraph): string[][] {
  let counter = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const cycles: string[][] = []
  // Tarjan's algorithm; the graph is small (a few hundred files), recursion depth is fine.
  const visit = (node: string): void => {
    index.set(node, counter)
    low.set(node, counter)
    counter++
    stack.push(node)
    onStack.add(node)
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next)
        low.set(node, Math.min(low.get(node)!, low.get(next)!))
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!))
      }
    }
    if (low.get(node) !== index.get(node)) return
    const component: string[] = []
    let member: string
    do {
      member = stack.pop()!
      onStack.delete(member)
      component.push(member)
    } while (member !== node)
    if (component.length > 1 || graph.get(node)?.has(node)) cycles.push(component.sort())
  }
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node)
  return cycles.sort((a, b) => a[0]!.localeCompare(b[0]!))
}

/** A layer map: where a file belongs, and whether one file may import another. */
export interface LayerMap {
  /** The layer of a repository-relative file, or undefined when the map does not place it. */
  layerOf(file: string): string | undefined
  /** Why `from` may not import `to`, or undefined when it may. Both files are placed. */
  forbids(from: string, to: string): string | undefined
}

export interface Violation {
  from: string
  to: string
  why: string
}

/** Every edge the map forbids, every file it does not place, and every cycle, minus the known list. */
export function checkGraph(graph: ImportGraph, map: LayerMap, known: ReadonlyArray<readonly [string, string]> = []): Violation[] {
  const excused = new Set(known.map(([from, to]) => `${from} -> ${to}`))
  const pruned: ImportGraph = new Map()
  const violations: Violation[] = []
  for (const [from, targets] of graph) {
    const kept = new Set<string>()
    const fromLayer = map.layerOf(from)
    if (fromLayer === undefined) violations.push({ from, to: from, why: 'not placed in any layer' })
    for (const to of targets) {
      if (excused.has(`${from} -> ${to}`)) continue
      kept.add(to)
      if (fromLayer === undefined || map.layerOf(to) === undefined) continue
      const why = map.forbids(from, to)
      if (why !== undefined) violations.push({ from, to, why })
    }
    pruned.set(from, kept)
  }
  for (const cycle of findCycles(pruned)) {
    violations.push({ from: cycle[0]!, to: cycle.slice(1).join(', ') || cycle[0]!, why: `import cycle: ${cycle.join(' <-> ')}` })
  }
  return violations
}

/** Known violations that no longer occur (so the list only shrinks). */
export function staleKnown(graph: ImportGraph, map: LayerMap, known: ReadonlyArray<readonly [string, string]>): string[] {
  const stale: string[] = []
  for (const pair of known) {
    const [from, to] = pair
    if (!graph.get(from)?.has(to)) {
      stale.push(`${from} -> ${to} (no such import)`)
      continue
    }
    const without = known.filter((other) => other !== pair)
    const before = checkGraph(graph, map, known).length
    if (checkGraph(graph, map, without).length === before) stale.push(`${from} -> ${to} (not a violation)`)
  }
  return stale
}
