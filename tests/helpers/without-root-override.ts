// Root ignores file modes (CAP_DAC_OVERRIDE), so a test that needs a data dir the gateway
// cannot write must take that power away. Running the child as another user (nobody) does
// not work: that user cannot enter a checkout cloned into a private (0700) directory, nor
// reach its Node. Instead the child keeps uid 0 and loses only the capabilities that let it
// pass mode bits (setpriv drops them from its bounding and inheritable sets, so they are
// gone after exec): it then sees the modes as the owner of those files would. For any
// other user nothing changes.
import { spawnSync, type SpawnSyncOptionsWithStringEncoding, type SpawnSyncReturns } from 'node:child_process'

const overrides = '-dac_override,-dac_read_search,-fowner'

/** Whether this process is root and so needs the override dropped for mode bits to count. */
export const runningAsRoot = process.getuid?.() === 0

/** Runs `command args` as this user, but (for root) without the power to ignore file modes. */
export function spawnObeyingFileModes(command: string, args: string[], options: SpawnSyncOptionsWithStringEncoding): SpawnSyncReturns<string> {
  if (!runningAsRoot) return spawnSync(command, args, options)
  const result = spawnSync('setpriv', [`--inh-caps=${overrides}`, `--bounding-set=${overrides}`, '--', command, ...args], options)
  if (result.error) throw new Error(`setpriv (util-linux) is needed to drop root's override of file modes: ${result.error.message}`)
  return result
}
