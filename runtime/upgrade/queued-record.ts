// What root writes about an upgrade a rollout queued (issue 46), in the releases dir (root's,
// readable by all, so the gateway reads it and no other user can forge it):
//   rollout-taken.json    the request `gateway upgrade --queued` took, written before the
//                         request is removed and removed once the result is written: a runner
//                         cut off (kill -9, a power cut) leaves it behind
//   rollout-result.json   how the upgrade ended, for the gateway's rollout agent to report
// settleTaken() turns a request left taken into its result, from the upgrade journal once the
// start-up check has finished or undone the upgrade, so HQ hears what happened instead of
// waiting for a result that never comes.
import { promises as fs } from 'node:fs'
import path from 'node:path'
import { finalSteps, readJournal } from './journal.ts'
import type { InstallLayout } from './layout.ts'

export const rolloutDir = (dataDir: string) => path.join(dataDir, 'rollout')
/** Written by the agent in its rollout dir; the path unit runs `gateway upgrade --queued` when it appears. */
export const requestFile = (dataDir: string) => path.join(rolloutDir(dataDir), 'request.json')

export interface UpgradeRequest {
  rolloutId: number
  attempt: number
  version: string
  /** The archive's file name in the rollout dir (its .sig beside it). */
  archive: string
  requestedAt: string
}

export interface TakenRequest extends UpgradeRequest {
  takenAt: string
}

export interface UpgradeResult {
  rolloutId: number
  attempt: number
  version: string
  ok: boolean
  message: string
  at: string
}

type Files = Pick<InstallLayout, 'rolloutResult' | 'rolloutTaken'>

async function readJson<T>(file: string): Promise<T | null> {
  try {
    return JSON.parse(await fs.readFile(file, 'utf8')) as T
  } catch {
    return null
  }
}

/** Written beside, then renamed over: a reader never sees half a file. */
async function writeJson(file: string, value: unknown): Promise<void> {
  const handle = await fs.open(`${file}.partial`, 'w', 0o644)
  try {
    await handle.writeFile(`${JSON.stringify(value)}\n`)
    await handle.sync()
  } finally {
    await handle.close()
  }
  await fs.rename(`${file}.partial`, file)
}

export const readResult = (file: string) => readJson<UpgradeResult>(file)
export const readTaken = (file: string) => readJson<TakenRequest>(file)
export const writeResult = (layout: Files, result: UpgradeResult) => writeJson(layout.rolloutResult, result)
export const writeTaken = (layout: Files, taken: TakenRequest) => writeJson(layout.rolloutTaken, taken)
export const dropTaken = (layout: Files) => fs.rm(layout.rolloutTaken, { force: true })

export const sameRequest = (a: { rolloutId: number; attempt: number } | null, b: { rolloutId: number; attempt: number } | null) =>
  a !== null && b !== null && a.rolloutId === b.rolloutId && a.attempt === b.attempt

/**
 * A request taken by a runner that never wrote its result: the result from the journal (the
 * caller holds the upgrade lock and has recovered the journal first). Says what it did ('' for nothing).
 */
export async function settleTaken(layout: Files & Pick<InstallLayout, 'journal'>, dataDir: string): Promise<string> {
  const taken = await readTaken(layout.rolloutTaken)
  if (!taken) return ''
  // Cut off between recording it taken and removing it: the request is still queued and runs again.
  const queued = await readJson<UpgradeRequest>(requestFile(dataDir))
  if (!sameRequest(queued, taken) && !sameRequest(await readResult(layout.rolloutResult), taken)) {
    const journal = readJournal(layout.journal)
    const ours = journal !== null && journal.kind === 'upgrade' && journal.to.version === taken.version && journal.startedAt >= taken.takenAt
    // Not ended (an upgrade runs): not ours to settle.
    if (ours && !finalSteps.has(journal.step)) return ''
    let ok = false
    let message: string
    if (ours && journal.step === 'committed') {
      ok = true
      message = `upgraded ${journal.from.version} -> ${journal.to.version} (its runner was cut off after the commit)`
    } else if (ours) {
      message = `upgrade to ${taken.version} was cut off (power cut or kill) and did not complete: ${journal.step}, ${journal.reason ?? 'no reason recorded'}`
    } else {
      message = `upgrade to ${taken.version} was cut off (power cut or kill) before it began; nothing was changed`
    }
    await writeResult(layout, { rolloutId: taken.rolloutId, attempt: taken.attempt, version: taken.version, ok, message, at: new Date().toISOString() })
  }
  await dropTaken(layout)
  if (sameRequest(queued, taken)) return `the queued upgrade to ${taken.version} (rollout ${taken.rolloutId}) had been cut off before it began: queued again`
  return `the queued upgrade to ${taken.version} (rollout ${taken.rolloutId}) had been cut off: its result written`
}
