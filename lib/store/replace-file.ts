// Replacing a file's whole content so that a crash at any point leaves the old content or
// the new, never a mix: the new content goes to `<file>~`, is fsynced, renamed over the
// file, and the directory fsynced so the rename itself survives a power cut. The same
// steps and `~` name as NeDB's own rewrite (its storage.crashSafeWriteFileLinesAsync), so
// a data dir an older version left mid-rewrite is recovered the same way. NeDB also fsynced
// the old file first; not needed here: every acknowledged append is fsynced already
// (datafile.ts), and a crash before the rename survives leaves that old file in place.
import { promises as fs } from 'node:fs'
import path from 'node:path'

export const replacementOf = (file: string): string => `${file}~`

/** Replaces `file`'s content with `text` (see above); on failure the file is as it was. */
export async function replaceFile(file: string, text: string): Promise<void> {
  const replacement = replacementOf(file)
  try {
    const handle = await fs.open(replacement, 'w', 0o600)
    try {
      await handle.writeFile(text)
      await handle.sync()
    } finally {
      await handle.close()
    }
    await fs.rename(replacement, file)
  } catch (error) {
    // A half-written replacement is of no use, and left behind it would keep the disk as
    // full as the attempt made it (a large collection's: every other file's writes refused).
    await fs.rm(replacement, { force: true }).catch(() => undefined)
    throw error
  }
  await syncDirectory(path.dirname(file))
}

/**
 * Before reading `file`. The rename replaces the file atomically, so `<file>~` alone means a
 * crash while replacing a file that did not exist yet (a new collection's first rewrite):
 * it is all there is, and becomes the file (as NeDB's ensureDatafileIntegrityAsync does).
 * A `~` beside the file is an unfinished replacement; the next one overwrites it.
 */
export async function recoverReplacement(file: string): Promise<void> {
  if (await exists(file)) return
  if (await exists(replacementOf(file))) {
    await fs.rename(replacementOf(file), file)
    await syncDirectory(path.dirname(file))
  }
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  )
}
