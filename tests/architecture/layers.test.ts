// The import-direction test: lib/, functions/ and runtime/ import only downward through the
// layers in tests/architecture/layers.ts, and no modules import each other (no cycles).
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { checkGraph, findCycles, importSpecifiers, readImportGraph, staleKnown, type ImportGraph, type LayerMap } from './import-graph.ts'
import { DOMAIN_MAY_IMPORT, gatewayLayers, layerOf } from './layers.ts'

const root = fileURLToPath(new URL('../..', import.meta.url))

/**
 * Violations the tree is allowed to keep for now, each an import (from -> to) that later
 * work removes: empty, and it stays so. Should one ever be needed, an entry that no longer
 * occurs fails the test until it is deleted, so the list can only shrink.
 */
const KNOWN: ReadonlyArray<readonly [string, string]> = []

t.test('the product code imports only downward and has no import cycle', async (t) => {
  const graph = readImportGraph(root, ['lib', 'functions', 'runtime'])
  t.ok(graph.size > 100, `read ${graph.size} files`)
  t.strictSame(checkGraph(graph, gatewayLayers, KNOWN), [], 'no violation outside the known list')
  t.strictSame(staleKnown(graph, gatewayLayers, KNOWN), [], 'every known violation still occurs (delete the ones fixed)')
})

t.test('the layer map places every lib folder and ranks the layers', async (t) => {
  t.equal(layerOf('lib/kernel/clock.ts'), 'kernel')
  t.equal(layerOf('lib/store/db.ts'), 'store')
  t.equal(layerOf('lib/orders/service.ts'), 'domain')
  t.equal(layerOf('lib/api/envelope.ts'), 'api')
  t.equal(layerOf('runtime/wiring/main.ts'), 'app')
  t.equal(layerOf('functions/v2/orders.get.ts'), 'app')
  t.equal(layerOf('lib/nowhere/x.ts'), undefined, 'a new lib folder must be placed by hand')
  t.equal(gatewayLayers.forbids('lib/store/db.ts', 'lib/orders/types.ts'), 'store may not import domain (upward)')
  t.equal(gatewayLayers.forbids('lib/orders/service.ts', 'lib/store/db.ts'), undefined)
  t.match(gatewayLayers.forbids('lib/radio/radio.ts', 'lib/orders/service.ts'), /radio may not import orders/)
  t.equal(gatewayLayers.forbids('lib/radio/radio.ts', 'lib/orders/types.ts'), undefined)
  t.equal(gatewayLayers.forbids('lib/api/present-tracker.ts', 'lib/radio/zigbee-configure.ts'), 'api may not import radio (API_MAY_NOT_IMPORT)')
  t.equal(gatewayLayers.forbids('lib/api/present-tracker.ts', 'lib/inventory/tracker-availability.ts'), undefined)
  for (const [part, targets] of Object.entries(DOMAIN_MAY_IMPORT)) {
    for (const target of targets) t.ok(DOMAIN_MAY_IMPORT[target], `${part} -> ${target}: ${target} is a part`)
  }
})

t.test('the reader finds static, type-only, multi-line and dynamic relative imports', async (t) => {
  const source = [
    "import { a } from './a.ts'",
    "import type { B } from '../b.ts'",
    'import {',
    '  c,',
    '  d,',
    "} from './cd.ts'",
    "export { e } from './e.ts'",
    "export type { F } from './f.ts'",
    "import './side-effect.ts'",
    "const g = await import('./g.ts')",
    "import { WebSocketServer } from 'ws'",
    "// import { no } from './commented.ts'",
    "/* import { no } from './block.ts' */",
    "const url = 'http://x/y' // import('./after-url.ts')",
  ].join('\n')
  t.strictSame(importSpecifiers(source).sort(), ['../b.ts', './a.ts', './cd.ts', './e.ts', './f.ts', './g.ts', './side-effect.ts'])
})

const tiny: LayerMap = {
  layerOf: (file) => file.split('/')[0],
  forbids: (from, to) => (from.startsWith('low/') && to.startsWith('high/') ? 'low may not import high (upward)' : undefined),
}

t.test('the check fails on an upward import and on a cycle (synthetic graph)', async (t) => {
  const graph: ImportGraph = new Map([
    ['high/a.ts', new Set(['low/b.ts'])],
    ['low/b.ts', new Set(['high/a.ts', 'low/c.ts'])],
    ['low/c.ts', new Set(['low/d.ts'])],
    ['low/d.ts', new Set(['low/c.ts'])],
    ['low/e.ts', new Set(['low/e.ts'])],
  ])
  const violations = checkGraph(graph, tiny)
  t.strictSame(
    violations.filter((v) => !v.why.startsWith('import cycle')),
    [{ from: 'low/b.ts', to: 'high/a.ts', why: 'low may not import high (upward)' }],
  )
  t.strictSame(findCycles(graph), [['high/a.ts', 'low/b.ts'], ['low/c.ts', 'low/d.ts'], ['low/e.ts']])
  t.equal(violations.filter((v) => v.why.startsWith('import cycle')).length, 3, 'two-file, upward and self cycles all fail')

  const excused = checkGraph(graph, tiny, [
    ['low/b.ts', 'high/a.ts'],
    ['low/d.ts', 'low/c.ts'],
    ['low/e.ts', 'low/e.ts'],
  ])
  t.strictSame(excused, [], 'listing the offending imports excuses them, and breaks the cycles they made')
  t.strictSame(
    staleKnown(graph, tiny, [
      ['low/b.ts', 'high/a.ts'],
      ['high/a.ts', 'low/b.ts'],
      ['low/x.ts', 'low/c.ts'],
    ]),
    ['high/a.ts -> low/b.ts (not a violation)', 'low/x.ts -> low/c.ts (no such import)'],
    'a listed import that is gone, or that is allowed, is stale',
  )
  t.strictSame(staleKnown(graph, tiny, [['low/c.ts', 'low/d.ts']]), [], 'one edge of a cycle is enough to list')
})

t.test('a file the map does not place is a violation', async (t) => {
  const graph: ImportGraph = new Map([['elsewhere/x.ts', new Set<string>()]])
  t.strictSame(checkGraph(graph, { ...tiny, layerOf: () => undefined }), [{ from: 'elsewhere/x.ts', to: 'elsewhere/x.ts', why: 'not placed in any layer' }])
})
