// The shape of a `gateway <command>`: what cli.ts calls, and what each *-commands.ts file
// exports for it. Its own file so the command files and cli.ts do not import each other.
import type { ParseArgsOptionsConfig } from 'node:util'

/** Runs one command against the gateway whose data dir is given; resolves with what to print. */
export type CliCommand = (positionals: string[], flags: Record<string, string | boolean | undefined>, dataDir: string) => Promise<string>

export interface CliCommandEntry {
  run: CliCommand
  /** Options the command declares, so "--format csv" parses as a value, not a flag and a positional. */
  options?: ParseArgsOptionsConfig
  /** What `gateway <command> --help` prints after the command's usage lines. */
  help?: string
}
