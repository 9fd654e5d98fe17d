// `gateway upgrade --queued` (runtime/upgrade/queued.ts): the request a rollout queued in the
// data dir is taken once, and how the upgrade ended is written for the gateway to report.
// The upgrade itself is upgrade.ts's (tests/runtime/upgrade/upgrade.test.ts; the whole path on
// installed boxes: tests/deploy/rollout.test.ts).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { installLayout } from '../../../runtime/upgrade/layout.ts'
import { readResult, requestFile, runQueued } from '../../../runtime/upgrade/queued.ts'
import type { UpgradeContext } from '../../../runtime/upgrade/upgrade.ts'

t.test('a queued request is taken once and its end written; nothing queued: nothing done', async (t) => {
  const root = t.testdir({})
  const layout = installLayout(root)
  mkdirSync(layout.releases, { recursive: true })
  const dataDir = path.join(root, 'data')
  mkdirSync(path.join(dataDir, 'rollout'), { recursive: true })
  const lines: string[] = []
  const unused = async () => {
    throw new Error('not reached')
  }
  const ctx: UpgradeContext = {
    layout,
    dataDir,
    service: { start: unused, stop: unused, restart: unused, state: unused },
    say: (line) => lines.push(line),
    healthLimitMs: 1000,
    stableMs: 10,
  }
  t.equal(await runQueued(ctx), 'no upgrade queued')
  t.equal(await readResult(layout.rolloutResult), null)
  writeFileSync(
    requestFile(dataDir),
    JSON.stringify({ rolloutId: 4, attempt: 2, version: '0.2.0', archive: '../../etc/tracker-gateway-0.2.0.tar.gz', requestedAt: new Date().toISOString() }),
  )
  await t.rejects(runQueued(ctx), /is not a link into/)
  t.notOk(existsSync(requestFile(dataDir)), 'the request is taken: it runs once')
  t.match(await readResult(layout.rolloutResult), { rolloutId: 4, attempt: 2, version: '0.2.0', ok: false, message: /is not a link into/ })
  t.match(readFileSync(layout.rolloutResult, 'utf8'), /"ok":false/)
})
