// The shape of a lunch with a peak, for the demo (`gateway start --demo`): guests arrive at
// the steady pace of a quiet service, then much faster for the middle half of it, and the
// kitchen falls behind a little while it is busy. At the peak about 30 orders are out at
// once (arrivals every 9.5 s on average, each visit about 4.5 minutes) with several of them
// late, the load a pass screen is built for; a newcomer sees the board under a real rush.

/** Restaurant seconds between guests outside the peak and at its height. */
export const quietGap = [10, 40] as const
export const peakGap = [6, 13] as const
/** Share of orders whose food comes after the target, quiet and at the peak. */
export const quietLateShare = 0.12
export const peakLateShare = 0.25

/**
 * How busy the service is at `progress` (0 at the first guest, 1 when arrivals end): 0
 * quiet, 1 at the peak; it rises over the first quarter and falls over the last.
 */
export function peakLevel(progress: number): number {
  if (progress <= 0 || progress >= 1) return 0
  if (progress < 0.25) return progress / 0.25
  if (progress > 0.75) return (1 - progress) / 0.25
  return 1
}

const between = (quiet: number, peak: number, level: number) => quiet + (peak - quiet) * level

/** The bounds the next arrival gap is drawn from at `progress` of the service. */
export function arrivalGapAt(progress: number): readonly [number, number] {
  const level = peakLevel(progress)
  return [between(quietGap[0], peakGap[0], level), between(quietGap[1], peakGap[1], level)]
}

export function lateShareAt(progress: number): number {
  return between(quietLateShare, peakLateShare, peakLevel(progress))
}
