// zigbee-herdsman (its serial bindings, its module-global state) is loaded by one module
// only, lib/radio/zigbee.ts; every other product file may import its types, never its code.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'

const root = path.resolve(import.meta.dirname, '../../..')

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name)
    if (statSync(full).isDirectory()) return sources(full)
    return name.endsWith('.ts') ? [full] : []
  })
}

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

t.test('only lib/radio/zigbee.ts loads zigbee-herdsman at runtime', async (t) => {
  const importers = ['lib', 'runtime', 'functions']
    .flatMap((dir) => sources(path.join(root, dir)))
    .filter((file) => runtimeHerdsmanImports(readFileSync(file, 'utf8')).length > 0)
    .map((file) => path.relative(root, file))
  t.same(importers, ['lib/radio/zigbee.ts'])
})
