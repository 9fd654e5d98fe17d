// The one polling helper for tests: waits for a condition that an event outside the test's
// control makes true (a socket, a child process, a file), instead of sleeping a guessed time.
// The limits are generous: they are there to end a wait that will never succeed, not to judge
// speed. On a shared, busy machine (CI runners, `npm run test:loaded`) a process start, a
// browser, a broker or a database can take many times what it takes on an idle one.

/** The default limit of a wait: a stuck test still fails, a slow machine does not. */
export const generousMs = 60_000

/**
 * Resolves once `condition` holds; rejects naming `what` after `timeoutMs`. Checks between
 * turns of the event loop first (fast for in-process work), then every 5 ms.
 */
export async function until(condition: () => boolean | Promise<boolean>, what = 'condition', timeoutMs = generousMs): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (let turn = 0; !(await condition()); turn++) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (${timeoutMs / 1000} s)`)
    await pause(turn)
  }
}

export interface ProgressLimits {
  /** Fails when `progress` has not changed for this long. */
  stallMs?: number
  /** Fails after this long in all, progress or not. */
  limitMs?: number
}

/**
 * Like until, for a long wait that shows progress on the way (a count that grows, the bytes
 * a process wrote): it fails only when `progress()` has not changed for `stallMs`, or after
 * `limitMs` in all. A busy machine makes progress slowly; a stuck test makes none.
 */
export async function untilProgress(
  condition: () => boolean | Promise<boolean>,
  progress: () => unknown,
  what = 'condition',
  limits: ProgressLimits = {},
): Promise<void> {
  const { stallMs = generousMs, limitMs = 10 * generousMs } = limits
  const deadline = Date.now() + limitMs
  let last = JSON.stringify(progress())
  let movedAt = Date.now()
  for (let turn = 0; !(await condition()); turn++) {
    const now = Date.now()
    const seen = JSON.stringify(progress())
    if (seen !== last) {
      last = seen
      movedAt = now
    } else if (now - movedAt > stallMs) {
      throw new Error(`timed out waiting for ${what}: no progress for ${stallMs / 1000} s (at ${seen})`)
    }
    if (now > deadline) throw new Error(`timed out waiting for ${what} (${limitMs / 1000} s in all, last at ${seen})`)
    await pause(turn)
  }
}

function pause(turn: number): Promise<void> {
  return new Promise((resolve) => (turn < 100 ? setImmediate(resolve) : setTimeout(resolve, 5)))
}
