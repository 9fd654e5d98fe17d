// zigbee-herdsman (its serial bindings, its module-global state) is imported by one module,
// lib/radio/herdsman.ts, and its code is taken from there by one module only,
// lib/radio/zigbee.ts (which runs in the radio process); the others take its types.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { productSources, projectRoot as root } from '../../helpers/source-files.ts'

/** Imports, re-exports and dynamic imports of zigbee-herdsman that are not type-only. */
function runtimeHerdsmanImports(text: string): string[] {
  const statements = text.match(/^\s*(?:import|export)\s[^;]*?from\s+['"]zigbee-herdsman[^'"]*['"]/gm) ?? []
  const dynamic = text.match(/(?:import|require)\(\s*['"]zigbee-herdsman[^'"]*['"]\s*\)/g) ?? []
  return [...statements.filter((line) => !/^\s*(?:import|export)\s+type\s/.test(line)), ...dynamic].map((line) => line.trim())
}

t.test('the detector sees runtime imports and lets type-only ones through', async (t) => {
  t.same(runtimeHerdsmanImports("import type { Controller } from 'zigbee-herdsman'\nexport type { X } from 'zigbee-herdsman'"), [])
  t.equal(runtimeHerdsmanImports("import { Zcl } from 'zigbee-herdsman'").length, 1)
  t.equal(runtimeHerdsmanImports("import {\n  Controller,\n} from 'zigbee-herdsman/dist/x.js'").length, 1)
  t.equal(runtimeHerdsmanImports("const m = await import('zigbee-herdsman')").length, 1)
})

const productFiles = productSources

t.test('only lib/radio/herdsman.ts imports zigbee-herdsman, types included', async (t) => {
  const importers = productFiles()
    .filter((file) => /from\s+['"]zigbee-herdsman|import\(\s*['"]zigbee-herdsman/.test(readFileSync(file, 'utf8')))
    .map((file) => path.relative(root, file))
  t.same(importers, ['lib/radio/herdsman.ts'])
})

t.test('only lib/radio/zigbee.ts takes the code of herdsman.ts; the others its types', async (t) => {
  const loaders = productFiles()
    .filter((file) =>
      (readFileSync(file, 'utf8').match(/^\s*(?:import|export)\s[^;]*?from\s+['"]\.\/herdsman\.ts['"]/gm) ?? []).some(
        (line) => !/^\s*(?:import|export)\s+type\s/.test(line),
      ),
    )
    .map((file) => path.relative(root, file))
  t.same(loaders, ['lib/radio/zigbee.ts'])
})
