// npm run bench:schemas — what the schema library costs in idle memory: the gateway's own
// (lib/kernel/schema) against zod 4 (classic and zod/mini) and valibot, each holding the
// gateway's schemas. Every lib/ module that builds schemas is imported, the schemas it exports
// are written down as plain descriptions, and each library rebuilds all of them in a fresh
// process, from an esbuild bundle as the gateway runs (zod/mini and valibot bundled from the
// functions used, so tree-shaken as they would be). The figure is the heap and RSS growth
// after GC, median of three processes. valibot is no dependency of the project: it is
// installed for the run into a temporary directory (npm, exact version), or left out with
// a one-line message when that fails.
//
// Limits: the rebuilt schemas have the same structure and checks; refinements are not
// carried over (none holds memory of note), and messages stay each library's own.
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const valibotVersion = '1.5.0'
const root = path.resolve(import.meta.dirname, '..')
type Variant = 'gateway' | 'zod' | 'zod/mini' | 'valibot'
const variants: Variant[] = ['gateway', 'zod', 'zod/mini', 'valibot']
/** A schema as data (describe() writes, builders read). */
type Description = { k: string; [field: string]: any }

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'schema-libraries-'))
  try {
    const described = await describeGatewaySchemas()
    writeFileSync(path.join(dir, 'schemas.json'), JSON.stringify(described.schemas))
    console.log(`${described.schemas.length} exported schemas (${described.nodes} schema nodes) from ${described.modules} modules`)
    const available = bundle(dir)
    console.log('| library | bundle | heap after GC | RSS |\n|---|---|---|---|')
    for (const variant of variants) {
      if (!available.has(variant)) continue
      const runs = [0, 1, 2].map(() => {
        const run = spawnSync(process.execPath, ['--expose-gc', '--disable-warning=ExperimentalWarning', import.meta.filename, '--child', variant, dir], {
          encoding: 'utf8',
        })
        if (run.status !== 0) throw new Error(`${variant}: ${run.stderr}`)
        return JSON.parse(run.stdout) as { heap: number; rss: number }
      })
      const median = (values: number[]) => values.sort((a, b) => a - b)[1]!
      const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`
      console.log(
        `| ${variant} | ${(available.get(variant)! / 1000).toFixed(0)} kB | +${mb(median(runs.map((r) => r.heap)))} | +${mb(median(runs.map((r) => r.rss)))} |`,
      )
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Every lib/ module that imports the schema library, and the schemas they export. */
async function describeGatewaySchemas(): Promise<{ schemas: Description[]; nodes: number; modules: number }> {
  const modules = (readdirSync(path.join(root, 'lib'), { recursive: true }) as string[])
    .filter((file) => file.endsWith('.ts') && !file.startsWith('kernel/schema/') && !file.endsWith('.d.ts'))
    .filter((file) => readFileSync(path.join(root, 'lib', file), 'utf8').includes('kernel/schema/index.ts'))
  const { ZodType } = await import('../lib/kernel/schema/index.ts')
  const found = new Set<InstanceType<typeof ZodType>>()
  const visit = (value: any, depth: number) => {
    if (value instanceof ZodType) return void found.add(value)
    if (depth > 3 || value === null || typeof value !== 'object') return
    for (const key of Object.keys(value)) visit(value[key], depth + 1)
    // BodyInput and QueryInput keep their schema behind a method.
    if (typeof value.schema === 'function') visit(value.schema(), depth + 1)
  }
  for (const file of modules) for (const value of Object.values(await import(pathToFileURL(path.join(root, 'lib', file)).href))) visit(value, 0)
  let nodes = 0
  const schemas = [...found].map((schema) => describe(schema, () => nodes++))
  return { schemas, nodes, modules: modules.length }
}

function describe(s: any, count: () => void): Description {
  count()
  const d = (inner: any) => describe(inner, count)
  const pattern = (p: RegExp) => ({ source: p.source, flags: p.flags })
  const unsafe = (n: number | undefined) => (n === Number.MIN_SAFE_INTEGER || n === Number.MAX_SAFE_INTEGER ? undefined : n)
  switch (s.constructor.name) {
    case 'ZodString':
      return { k: 'string', min: s.bounds.minimum, max: s.bounds.maximum, patterns: s.patterns.map(pattern), format: s.format?.format }
    case 'ZodNumber':
      return { k: 'number', int: s.isInt, min: unsafe(s.bounds.minimum), max: unsafe(s.bounds.maximum) }
    case 'ZodBoolean':
      return { k: 'boolean' }
    case 'ZodValues':
      return { k: s.single ? 'literal' : 'enum', values: s.values }
    case 'ZodOptional':
    case 'ZodNullable':
    case 'ZodPipe':
      return { k: { ZodOptional: 'optional', ZodNullable: 'nullable', ZodPipe: 'transform' }[s.constructor.name as string]!, inner: d(s.inner) }
    case 'ZodDefault':
    case 'ZodPrefault':
      return { k: s.constructor.name === 'ZodDefault' ? 'default' : 'prefault', inner: d(s.inner), value: s.fallback }
    case 'ZodObject':
      return { k: 'object', strict: s.strict, shape: Object.fromEntries(Object.entries(s.shape).map(([key, value]) => [key, d(value)])) }
    case 'ZodArray':
      return { k: 'array', item: d(s.item), min: s.minItems, max: s.maxItems }
    case 'ZodRecord':
      return { k: 'record', key: d(s.key), value: d(s.value) }
    case 'ZodUnion':
      return { k: 'union', options: s.options.map(d) }
  }
  throw new Error(`no description for ${s.constructor.name}`)
}

/** One bundle per library (in dir); the map holds each bundled library's size in bytes. */
function bundle(dir: string): Map<Variant, number> {
  const sources: Record<Variant, string> = {
    gateway: `export * from ${JSON.stringify(path.join(root, 'lib/kernel/schema/index.ts'))}`,
    zod: `export * from 'zod'`,
    'zod/mini': `export { string, url, iso, int, number, boolean, enum, literal, optional, nullable, _default, prefault, pipe, transform, object, strictObject, array, record, union, minLength, maxLength, regex, gte, lte } from 'zod/mini'`,
    valibot: `export { string, url, isoTimestamp, minLength, maxLength, regex, integer, minValue, maxValue, number, boolean, picklist, literal, null, optional, nullable, pipe, transform, object, strictObject, array, record, union } from 'valibot'`,
  }
  const nodePaths = [path.join(root, 'node_modules')]
  try {
    execFileSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', dir, `valibot@${valibotVersion}`], { stdio: 'ignore' })
    nodePaths.push(path.join(dir, 'node_modules'))
  } catch {
    console.log(`valibot ${valibotVersion} could not be installed (no registry?): left out`)
  }
  const sizes = new Map<Variant, number>()
  for (const variant of variants) {
    const entry = path.join(dir, `entry-${variant.replace('/', '-')}.mjs`)
    const out = path.join(dir, `${variant.replace('/', '-')}.mjs`)
    writeFileSync(entry, sources[variant])
    const esbuild = path.join(root, 'node_modules/.bin/esbuild')
    const run = spawnSync(esbuild, [entry, '--bundle', '--format=esm', '--platform=node', `--outfile=${out}`, '--log-level=error'], {
      env: { ...process.env, NODE_PATH: nodePaths.join(path.delimiter) },
      encoding: 'utf8',
    })
    if (run.status === 0) sizes.set(variant, readFileSync(out).length)
    else if (variant !== 'valibot' || nodePaths.length > 1) throw new Error(`bundling ${variant}: ${run.stderr}`)
  }
  return sizes
}

async function child(variant: Variant, dir: string): Promise<void> {
  const described = JSON.parse(readFileSync(path.join(dir, 'schemas.json'), 'utf8')) as Description[]
  const gc = (globalThis as { gc?: () => void }).gc!
  const settled = () => {
    for (let i = 0; i < 4; i++) gc()
    return process.memoryUsage()
  }
  const before = settled()
  const library = await import(pathToFileURL(path.join(dir, `${variant.replace('/', '-')}.mjs`)).href)
  const build = variant === 'zod/mini' ? miniBuilder(library) : variant === 'valibot' ? valibotBuilder(library) : zodBuilder(library)
  const kept = described.map(build)
  const after = settled()
  process.stdout.write(JSON.stringify({ schemas: kept.length, heap: after.heapUsed - before.heapUsed, rss: after.rss - before.rss }))
}

const regex = (p: { source: string; flags: string }) => new RegExp(p.source, p.flags)

/** The gateway's library and zod classic: the same method-chaining API. */
function zodBuilder(z: any): (d: Description) => unknown {
  const build = (d: Description): any => {
    switch (d.k) {
      case 'string': {
        let s = d.format === 'url' ? z.url() : d.format === 'datetime' ? z.iso.datetime() : z.string()
        if (d.min !== undefined) s = s.min(d.min)
        if (d.max !== undefined) s = s.max(d.max)
        for (const p of d.patterns) s = s.regex(regex(p))
        return s
      }
      case 'number': {
        let s = z.number()
        if (d.int) s = s.int()
        if (d.min !== undefined) s = s.min(d.min)
        if (d.max !== undefined) s = s.max(d.max)
        return s
      }
      case 'boolean':
        return z.boolean()
      case 'enum':
        return z.enum(d.values)
      case 'literal':
        return z.literal(d.values[0])
      case 'optional':
        return build(d.inner).optional()
      case 'nullable':
        return build(d.inner).nullable()
      case 'default':
        return build(d.inner).default(d.value)
      case 'prefault':
        return build(d.inner).prefault(d.value)
      case 'transform':
        return build(d.inner).transform((value: unknown) => value)
      case 'object': {
        const shape = Object.fromEntries(Object.entries(d.shape).map(([key, value]) => [key, build(value as Description)]))
        return d.strict ? z.strictObject(shape) : z.object(shape)
      }
      case 'array': {
        let s = z.array(build(d.item))
        if (d.min !== undefined) s = s.min(d.min)
        if (d.max !== undefined) s = s.max(d.max)
        return s
      }
      case 'record':
        return z.record(build(d.key), build(d.value))
      case 'union':
        return z.union(d.options.map(build))
    }
    throw new Error(d.k)
  }
  return build
}

/** zod/mini: functions and .check(). */
function miniBuilder(z: any): (d: Description) => unknown {
  const checked = (s: any, checks: unknown[]) => (checks.length ? s.check(...checks) : s)
  const build = (d: Description): any => {
    switch (d.k) {
      case 'string': {
        const checks = [
          ...(d.min === undefined ? [] : [z.minLength(d.min)]),
          ...(d.max === undefined ? [] : [z.maxLength(d.max)]),
          ...d.patterns.map((p: any) => z.regex(regex(p))),
        ]
        return checked(d.format === 'url' ? z.url() : d.format === 'datetime' ? z.iso.datetime() : z.string(), checks)
      }
      case 'number':
        return checked(d.int ? z.int() : z.number(), [...(d.min === undefined ? [] : [z.gte(d.min)]), ...(d.max === undefined ? [] : [z.lte(d.max)])])
      case 'boolean':
        return z.boolean()
      case 'enum':
        return z.enum(d.values)
      case 'literal':
        return z.literal(d.values[0])
      case 'optional':
        return z.optional(build(d.inner))
      case 'nullable':
        return z.nullable(build(d.inner))
      case 'default':
        return z._default(build(d.inner), d.value)
      case 'prefault':
        return z.prefault(build(d.inner), d.value)
      case 'transform':
        return z.pipe(
          build(d.inner),
          z.transform((value: unknown) => value),
        )
      case 'object': {
        const shape = Object.fromEntries(Object.entries(d.shape).map(([key, value]) => [key, build(value as Description)]))
        return d.strict ? z.strictObject(shape) : z.object(shape)
      }
      case 'array':
        return checked(z.array(build(d.item)), [...(d.min === undefined ? [] : [z.minLength(d.min)]), ...(d.max === undefined ? [] : [z.maxLength(d.max)])])
      case 'record':
        return z.record(build(d.key), build(d.value))
      case 'union':
        return z.union(d.options.map(build))
    }
    throw new Error(d.k)
  }
  return build
}

/** valibot: schemas and pipe() actions; a default or prefault is optional()'s default. */
function valibotBuilder(v: any): (d: Description) => unknown {
  const piped = (s: any, actions: unknown[]) => (actions.length ? v.pipe(s, ...actions) : s)
  const build = (d: Description): any => {
    switch (d.k) {
      case 'string': {
        const actions = [
          ...(d.format === 'url' ? [v.url()] : d.format === 'datetime' ? [v.isoTimestamp()] : []),
          ...(d.min === undefined ? [] : [v.minLength(d.min)]),
          ...(d.max === undefined ? [] : [v.maxLength(d.max)]),
          ...d.patterns.map((p: any) => v.regex(regex(p))),
        ]
        return piped(v.string(), actions)
      }
      case 'number':
        return piped(v.number(), [
          ...(d.int ? [v.integer()] : []),
          ...(d.min === undefined ? [] : [v.minValue(d.min)]),
          ...(d.max === undefined ? [] : [v.maxValue(d.max)]),
        ])
      case 'boolean':
        return v.boolean()
      case 'enum':
        return v.picklist(d.values)
      case 'literal':
        return d.values[0] === null ? v.null() : v.literal(d.values[0])
      case 'optional':
        return v.optional(build(d.inner))
      case 'nullable':
        return v.nullable(build(d.inner))
      case 'default':
      case 'prefault':
        return v.optional(build(d.inner), d.value)
      case 'transform':
        return v.pipe(
          build(d.inner),
          v.transform((value: unknown) => value),
        )
      case 'object': {
        const shape = Object.fromEntries(Object.entries(d.shape).map(([key, value]) => [key, build(value as Description)]))
        return d.strict ? v.strictObject(shape) : v.object(shape)
      }
      case 'array':
        return piped(v.array(build(d.item)), [...(d.min === undefined ? [] : [v.minLength(d.min)]), ...(d.max === undefined ? [] : [v.maxLength(d.max)])])
      case 'record':
        return v.record(build(d.key), build(d.value))
      case 'union':
        return v.union(d.options.map(build))
    }
    throw new Error(d.k)
  }
  return build
}

// Last, once every constant above is initialised.
if (process.argv[2] === '--child') await child(process.argv[3] as Variant, process.argv[4]!)
else await main()
