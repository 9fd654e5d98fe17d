// `gateway <command> [subcommand] --help`: that command's own usage lines (taken from the
// one usage text cli.ts prints, so the two never disagree), and its details where it has
// more to say; the whole list only for `gateway --help` or a command it does not know.

/** A command's line in the usage text: two spaces, then its words; continuation lines are indented deeper. */
const commandLine = /^ {2}\S/

/** How many of `words` the line's leading literal words match (`<file>`, `[--x]` and flags end the literal part). */
function matched(line: string, words: string[]): number {
  const literal = line.trim().split(/\s+/)
  let count = 0
  while (count < words.length && count < literal.length && !/^[<[-]/.test(literal[count]) && literal[count] === words[count]) count++
  return count
}

/**
 * The usage lines of the command `words` names (`['new', 'endpoint', 'GET', '/x']` → the
 * `new endpoint` line), each with its continuation lines, then `details`; undefined when no
 * line starts with the command's name.
 */
export function commandHelp(usage: string, words: string[], details?: string): string | undefined {
  const lines = usage.split('\n')
  const entries: { score: number; lines: string[] }[] = []
  for (const line of lines) {
    if (commandLine.test(line)) entries.push({ score: matched(line, words), lines: [line] })
    else if (/^ {3,}\S/.test(line) && entries.length) entries[entries.length - 1].lines.push(line)
  }
  const best = Math.max(0, ...entries.map((entry) => entry.score))
  if (best === 0) return undefined
  const own = entries.filter((entry) => entry.score === best).flatMap((entry) => entry.lines)
  return [`usage of gateway ${words.slice(0, best).join(' ')}:`, ...own, ...(details ? ['', details] : [])].join('\n')
}
