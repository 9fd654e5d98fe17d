// The one polling helper for tests: waits for a condition that an event outside the test's
// control makes true (a socket, a child process, a file), instead of sleeping a guessed time.

/**
 * Resolves once `condition` holds; rejects naming `what` after `timeoutMs`. Checks between
 * turns of the event loop first (fast for in-process work), then every 5 ms.
 */
export async function until(condition: () => boolean | Promise<boolean>, what = 'condition', timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (let turn = 0; !(await condition()); turn++) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => (turn < 100 ? setImmediate(resolve) : setTimeout(resolve, 5)))
  }
}
