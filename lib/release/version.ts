// Release versions as package.json writes them (1.2.3, 1.2.3-rc.1): which is newer, so an
// older archive is refused unless the operator asks for a downgrade.

/** Negative when a is older than b, 0 when the same, positive when newer. */
export function compareVersions(a: string, b: string): number {
  const [coreA = '', preA] = splitVersion(a)
  const [coreB = '', preB] = splitVersion(b)
  const numsA = coreA.split('.').map(Number)
  const numsB = coreB.split('.').map(Number)
  for (let i = 0; i < Math.max(numsA.length, numsB.length); i++) {
    const diff = (numsA[i] ?? 0) - (numsB[i] ?? 0)
    if (diff !== 0) return Math.sign(diff)
  }
  // A pre-release comes before its release (1.0.0-rc.1 < 1.0.0).
  if (preA === undefined || preB === undefined) return preA === preB ? 0 : preA === undefined ? 1 : -1
  return preA < preB ? -1 : preA > preB ? 1 : 0
}

function splitVersion(version: string): [string, string | undefined] {
  const dash = version.indexOf('-')
  return dash === -1 ? [version, undefined] : [version.slice(0, dash), version.slice(dash + 1)]
}
