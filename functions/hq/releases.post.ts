// POST /api/hq/releases: uploads a signed release (issue 46). The body is the archive
// (tracker-gateway-<version>.tar.gz, as npm run release makes it) and the Release-Signature
// header its detached signature (the .sig file, base64). HQ checks the signature with the
// chain's release keys (hq.config.json releases.keys) before keeping a byte, stages the body
// in a private temporary file as it arrives (never the whole archive in memory), checks its
// digest against the signature, and only then stores it; a refused one is not stored.
import { HqError } from '../../lib/hq/errors.ts'
import type { ReleaseUpload } from '../../lib/hq/releases.ts'
import { DomainError } from '../../lib/kernel/errors.ts'
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

const refused = (error: ReleaseRefusedError) => new HqError('RELEASE_REFUSED', `release refused: ${error.message}`)

const handler: HqFunction = async (request, ctx) => {
  const header = request.headers.get('release-signature')
  if (!header || !/^[A-Za-z0-9+/=_-]+$/.test(header)) throw new HqError('RELEASE_INVALID')
  const signature = Buffer.from(header, 'base64').toString('utf8')
  const { releases } = ctx.services
  let upload: ReleaseUpload
  try {
    upload = await releases.receive(signature)
  } catch (error) {
    if (!(error instanceof ReleaseRefusedError)) throw error
    // Nothing is kept; the body is read and dropped so that a client still sending it gets the answer.
    await ctx.streamBody(releases.maxBytes, async () => undefined).catch(() => undefined)
    throw refused(error)
  }
  try {
    const size = await ctx.streamBody(releases.maxBytes, (chunk) => upload.write(chunk))
    if (size === undefined) throw new HqError('RELEASE_TOO_LARGE')
    if (size === 0) throw new HqError('RELEASE_INVALID')
    const { release, created } = await upload.store()
    return ctx.ok({ release, created }, { status: created ? 201 : 200 })
  } catch (error) {
    if (error instanceof ReleaseRefusedError) throw refused(error)
    // The client went away before the end of its upload (nobody reads this answer).
    if (error instanceof DomainError) throw new HqError('RELEASE_INVALID', 'the upload ended before the whole archive arrived')
    throw error
  } finally {
    await upload.discard()
  }
}
export default handler
