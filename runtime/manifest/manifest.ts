// Rules every manifest must satisfy; run by the generator, at start-up and by the tests.
// Each breach names the file, so a mistake in a dropped-in function is found at once.
import type { FunctionConfig } from '../host/function-types.ts'
import { takesToken } from '../../lib/api/function-config.ts'
import { isScope, scopes } from '../../lib/tokens/scopes.ts'

export interface ManifestCandidate {
  file: string
  config: FunctionConfig | undefined
  hasHandler: boolean
}

const allowedParams = new Set(['id', 'uuid', 'name', 'address', 'site', 'release', 'rollout'])

/** functions/v2/activeorders.id.page.post.ts ⇔ POST /api/v2/activeorders/:id/page (HQ: functions/hq/..., /api/hq/...) */
export function expectedFileName(config: Pick<FunctionConfig, 'method' | 'path'>): string {
  const match = /^\/api\/(v[12]|hq)(\/.*)?$/.exec(config.path)
  if (!match) return '(path must start with /api/v1, /api/v2 or /api/hq)'
  const segments = (match[2] ?? '')
    .split('/')
    .filter(Boolean)
    .map((s) => s.replace(/^:/, ''))
  const stem = segments.length ? segments.join('.') : 'index'
  return `${match[1]}/${stem}.${config.method.toLowerCase()}.ts`
}

/** Static segments before parameters, so itty's first match is the most specific. */
export function routeSortKey(config: Pick<FunctionConfig, 'method' | 'path'>): string {
  const path = config.path
    .split('/')
    .map((s) => (s.startsWith(':') ? `~${s}` : s))
    .join('/')
  return `${path} ${config.method}`
}

export function checkManifest(candidates: ManifestCandidate[]): string[] {
  const problems: string[] = []
  const seen = new Map<string, string>()
  for (const { file, config, hasHandler } of candidates) {
    if (!config) {
      problems.push(`${file}: no exported config`)
      continue
    }
    if (!hasHandler) problems.push(`${file}: no default export handler`)
    const version = file.split('/')[0]
    if (!config.path.startsWith(`/api/${version}`)) {
      problems.push(`${file}: path ${config.path} does not belong to folder ${version}`)
    }
    const expected = expectedFileName(config)
    if (expected !== file) problems.push(`${file}: ${config.method} ${config.path} must live in ${expected}`)
    for (const param of config.path.match(/:\w+/g) ?? []) {
      if (!allowedParams.has(param.slice(1))) problems.push(`${file}: unknown path parameter ${param}`)
    }
    if (version === 'v2' || version === 'hq') {
      if (config.code === undefined || !Number.isInteger(config.code) || config.code < 1 || config.code > 999) {
        problems.push(`${file}: ${version} route needs a default code from 1 to 999`)
      }
    } else {
      if (config.code !== undefined) problems.push(`${file}: v1 routes carry no returnCode`)
      if (config.auth === 'bearer') problems.push(`${file}: bearer auth is v2 only`)
    }
    if (version !== 'hq') problems.push(...scopeProblems(file, config))
    const key = `${config.method} ${config.path.replace(/:\w+/g, ':param')}`
    const previous = seen.get(key)
    if (previous) problems.push(`${file}: ${config.method} ${config.path} is already served by ${previous}`)
    else seen.set(key, file)
  }
  return problems
}

/** A route that can take a token names the least scope it needs; an open one names none. */
function scopeProblems(file: string, config: FunctionConfig): string[] {
  if (!takesToken(config)) return config.scope === undefined ? [] : [`${file}: an open route names no scope (it takes no token)`]
  if (config.scope === undefined) return [`${file}: a route that takes a token must name its scope (${scopes.join(', ')})`]
  if (!isScope(config.scope)) return [`${file}: unknown scope ${String(config.scope)} (${scopes.join(', ')})`]
  return []
}
