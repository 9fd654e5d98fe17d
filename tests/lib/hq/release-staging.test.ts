// The staging file of a release upload: nothing of it is visible on the disk from the moment
// it is open (a killed HQ leaves nothing, no other user can open it), it gives back the bytes
// written in pieces of the size asked, with their SHA-256, and takes nothing more once its
// digest is taken.
import { createHash, randomBytes } from 'node:crypto'
import { readdirSync } from 'node:fs'
import t from 'tap'
import { ReleaseStaging } from '../../../lib/hq/release-staging.ts'

t.test('written in pieces as they come, read back in chunks, hashed, never visible', async (t) => {
  const dir = t.testdir({})
  const staging = await ReleaseStaging.open(dir)
  t.teardown(() => staging.close())
  t.same(readdirSync(dir), [], 'unlinked as soon as open, its directory too')
  const bytes = randomBytes(2_500_123)
  // Pieces as a socket hands them over: of any size.
  for (let at = 0, size = 1; at < bytes.length; at += size, size = (size * 7 + 13) % 200_000) await staging.write(bytes.subarray(at, at + size))
  t.equal(staging.size, bytes.length)
  t.equal(staging.digest(), createHash('sha256').update(bytes).digest('hex'))
  const pieces: Buffer[] = []
  for await (const piece of staging.pieces(1024 * 1024)) pieces.push(piece)
  t.same(
    pieces.map((piece) => piece.length),
    [1024 * 1024, 1024 * 1024, bytes.length - 2 * 1024 * 1024],
  )
  t.ok(Buffer.concat(pieces).equals(bytes), 'the bytes written')
  await t.rejects(staging.write(Buffer.from('more')), /complete: nothing more can be written/)
  await staging.close()
  await staging.close()
})

t.test('an empty upload has no piece', async (t) => {
  const staging = await ReleaseStaging.open(t.testdir({}))
  t.teardown(() => staging.close())
  t.equal(staging.digest(), createHash('sha256').digest('hex'))
  const pieces: Buffer[] = []
  for await (const piece of staging.pieces(1024)) pieces.push(piece)
  t.same(pieces, [])
})

t.test('a staging directory that does not exist is an error', async (t) => {
  await t.rejects(ReleaseStaging.open('/nonexistent-dir-for-staging'), { code: 'ENOENT' })
})
