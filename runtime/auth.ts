// The auth gate the router runs before a function. Bearer enforcement lands with the token
// service (issue 5); until then every route's stance is declared but not enforced.
import type { Caller, ManifestEntry } from './define.ts'
import type { Services } from './services.ts'

export async function authorize(
  _entry: ManifestEntry,
  _request: Request,
  _services: Services,
  _caller: Caller,
): Promise<void> {}
