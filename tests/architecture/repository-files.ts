// The repository's files as a reader who has only the repository sees them: git's tracked
// files (untracked and ignored ones are not part of it), or, where git cannot answer (no
// .git, or a checkout git refuses to read as this user), every file outside the generated and
// installed directories.
import { execFileSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url))

const notTheRepository = new Set(['.git', 'node_modules', '.tap', 'coverage', 'test-artifacts', 'dist', 'data'])

function walk(dir: string, relative = ''): string[] {
  return readdirSync(path.join(dir, relative), { withFileTypes: true }).flatMap((entry) => {
    const name = path.posix.join(relative, entry.name)
    if (entry.isDirectory()) return notTheRepository.has(entry.name) ? [] : walk(dir, name)
    return entry.isFile() ? [name] : []
  })
}

/** Repository-relative paths (with /) of every file in the repository. */
export function repositoryFiles(root = repositoryRoot): string[] {
  try {
    return execFileSync('git', ['-C', root, 'ls-files', '-z'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .split('\0')
      .filter(Boolean)
  } catch {
    return walk(root)
  }
}
