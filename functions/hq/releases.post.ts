// POST /api/hq/releases: uploads a signed release (issue 46). The body is the archive
// (tracker-gateway-<version>.tar.gz, as npm run release makes it) and the Release-Signature
// header its detached signature (the .sig file, base64). HQ verifies it with the chain's
// release keys (hq.config.json releases.keys) and stores it; a refused one is not stored.
import { HqError } from '../../lib/hq/errors.ts'
import { ReleaseRefusedError } from '../../lib/release/signature.ts'
import type { FunctionConfig, HqFunction } from '../../runtime/hq/function-types.ts'
import { releaseSchema } from '../../lib/hq/rollout-docs.ts'

export const config: FunctionConfig = {
  method: 'POST',
  path: '/api/hq/releases',
  auth: 'bearer',
  scope: 'admin',
  code: 11,
  successStatus: 201,
  summary:
    'Uploads a signed release: the archive as the body (application/gzip), its .sig file base64 in the Release-Signature header; verified with the release keys of hq.config.json, stored once (created false: the same archive was there)',
  errors: ['SCOPE_INSUFFICIENT', 'RELEASE_INVALID', 'RELEASE_TOO_LARGE', 'RELEASE_REFUSED'],
  response: { properties: { release: releaseSchema, created: { type: 'boolean' } } },
}

const handler: HqFunction = async (request, ctx) => {
  const header = request.headers.get('release-signature')
  if (!header || !/^[A-Za-z0-9+/=_-]+$/.test(header)) throw new HqError('RELEASE_INVALID')
  const signature = Buffer.from(header, 'base64').toString('utf8')
  const archive = await ctx.body(ctx.services.releases.maxBytes)
  if (archive === undefined) throw new HqError('RELEASE_TOO_LARGE')
  if (archive.length === 0) throw new HqError('RELEASE_INVALID')
  try {
    const { release, created } = await ctx.services.releases.store(archive, signature)
    return ctx.ok({ release, created }, { status: created ? 201 : 200 })
  } catch (error) {
    if (error instanceof ReleaseRefusedError) throw new HqError('RELEASE_REFUSED', `release refused: ${error.message}`)
    throw error
  }
}
export default handler
