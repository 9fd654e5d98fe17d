// GET /api/hq/releases/:release/archive: the archive, for the sites (their rollout command
// carries this URL and the release's download secret, sent as the X-Release-Secret header).
// Ranges (one range, bytes=a-b) are served, so a download cut short resumes where it stopped.
import { HqError } from '../../lib/hq/errors.ts'
import { parseRange, secretMatches } from '../../lib/hq/releases.ts'
import type { FunctionConfig, HqFunction } from '../../runtime/hq/function-types.ts'

export const config: FunctionConfig = {
  method: 'GET',
  path: '/api/hq/releases/:release/archive',
  auth: 'none',
  code: 13,
  contentType: 'application/gzip',
  summary:
    "A release's archive for a site: the X-Release-Secret header must be the release's download secret (sent to the sites in their rollout command); Range bytes=a-b gives 206 with that part (resumable downloads)",
  errors: ['RELEASE_NOT_FOUND', 'RANGE_INVALID'],
}

const handler: HqFunction = async (request, ctx) => {
  const id = /^\d{1,15}$/.test(ctx.params.release ?? '') ? Number(ctx.params.release) : Number.NaN
  const release = Number.isNaN(id) ? undefined : await ctx.services.releases.get(id)
  // A wrong secret gets the same answer as no release: the ids say nothing to a stranger.
  if (!release || !secretMatches(release.downloadSecret, request.headers.get('x-release-secret'))) throw new HqError('RELEASE_NOT_FOUND')
  const range = parseRange(request.headers.get('range'), release.size)
  if (range === 'invalid') throw new HqError('RANGE_INVALID')
  const { start, end } = range ?? { start: 0, end: release.size - 1 }
  const body = await ctx.services.releases.range(id, start, end)
  const headers: Record<string, string> = {
    'content-type': 'application/gzip',
    'accept-ranges': 'bytes',
    'cache-control': 'no-store',
    'x-content-sha256': release.sha256,
  }
  if (range) headers['content-range'] = `bytes ${start}-${end}/${release.size}`
  return ctx.bytes(range ? 206 : 200, headers, new Uint8Array(body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength)) as Uint8Array<ArrayBuffer>)
}
export default handler
