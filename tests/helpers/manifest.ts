// A hand-made manifest entry, for router and host tests (test routes never live in functions/).
import type { HostedFunction, ManifestEntry } from '../../runtime/host/function-types.ts'

export const testEntry = (file: string, method: 'GET' | 'POST', path: string, handler: HostedFunction): ManifestEntry => ({
  file,
  method,
  path,
  auth: 'none',
  ...(path.startsWith('/api/v2') ? { code: 42 } : {}),
  summary: `test route ${path}`,
  handler,
})
