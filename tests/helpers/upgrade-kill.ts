// Kill -9 at a step of an upgrade on an installed box (issue 46), shared by
// tests/deploy/upgrade-kill.test.ts (`gateway upgrade FILE`) and tests/deploy/rollout-kill.test.ts
// (the `gateway upgrade --queued` a rollout starts): the step drawn from a seed (printed), the
// upgrade killed with every process it started and the service cut as a power cut cuts it
// once the journal reaches the step, and what the box must be after it boots again.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { Test } from 'tap'
import { readJournal, type UpgradeStep } from '../../runtime/upgrade/journal.ts'
import { waitAnswers, type Box } from './upgrade-box.ts'
import { until } from './until.ts'

/** The steps an upgrade writes, in order; 'rolling-back' with a release that cannot start. */
export const killSteps: UpgradeStep[] = ['preparing', 'backed-up', 'prepared', 'switching', 'switched', 'restarted', 'rolling-back', 'committed']

/**
 * The steps to kill at: one drawn from `<prefix>_SEED` (random when unset, printed), or every
 * one with `<prefix>_STEPS=all`.
 */
export function chooseSteps<Step extends string>(t: Test, prefix: string, steps: readonly Step[]): Step[] {
  const seed = Number(process.env[`${prefix}_SEED`] ?? Math.floor(Math.random() * 2 ** 31))
  const all = process.env[`${prefix}_STEPS`] === 'all'
  const chosen = all ? [...steps] : [steps[seed % steps.length]!]
  t.comment(`kill steps: ${chosen.join(', ')} (${prefix}_SEED=${seed}${all ? ', all steps' : ''})`)
  return chosen
}

export const journalFile = (box: Box) => path.join(box.root, 'opt/tracker-gateway-releases/upgrade.json')

/**
 * Waits until the journal of the upgrade to `version` reaches `target` (or `reached()` says
 * so, or the upgrade ended: `ended()`), then runs `kill` and cuts the service's power. Says
 * the step the journal was at.
 */
export async function killAt(
  box: Box,
  version: string,
  target: UpgradeStep,
  options: { ended: () => boolean; kill: () => Promise<void>; reached?: () => boolean },
): Promise<UpgradeStep | undefined> {
  const order = killSteps.indexOf(target)
  let seen: UpgradeStep | undefined
  await until(
    () => {
      if (options.ended()) return true
      const journal = readJournal(journalFile(box))
      if (journal?.to.version !== version) return options.reached?.() ?? false
      seen = journal.step
      return killSteps.indexOf(journal.step) >= order || (options.reached?.() ?? false)
    },
    `the upgrade to reach ${target}`,
    300_000,
  )
  await options.kill()
  await box.service.powerCut()
  return seen
}

/**
 * The box booted after the kill: it answers on the version it came from or the one it went to,
 * no upgrade is left half done, `current` names the version that runs, `gateway status` is
 * clean. Resolves with the version it runs.
 */
export async function checkBooted(t: Test, box: Box, from: string, to: string): Promise<string> {
  const answered = await waitAnswers(box)
  t.ok([from, to].includes(answered), `runs ${answered}: the version it came from or the one it went to`)
  const journal = readJournal(journalFile(box))
  t.ok(journal === null || ['committed', 'rolled-back', 'abandoned'].includes(journal.step), `no upgrade left half done (${journal?.step})`)
  const current = JSON.parse(readFileSync(path.join(box.root, 'opt/tracker-gateway/package.json'), 'utf8')) as { version: string }
  t.equal(current.version, answered, 'the current link names the version that runs')
  const status = await box.gateway('status')
  t.equal(status.status, 0, status.stderr)
  t.notMatch(status.stdout, /in progress/)
  return answered
}
