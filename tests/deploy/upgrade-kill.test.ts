// kill -9 at each step of `gateway upgrade` leaves a box that starts (issue 46): the upgrade
// (with every process it started) and the service are killed as a power cut kills them once
// the journal reaches the chosen step, then the box boots (the stand-in runs the unit's
// start-up check, then the gateway): it must answer on the version it came from or the one
// it went to, with its orders, no upgrade left half done, and take the next upgrade.
// npm test kills at one step drawn from a seed (printed; UPGRADE_KILL_SEED=N repeats it);
// UPGRADE_KILL_STEPS=all (npm run test:upgrade-kill) goes through every step. The same for the
// upgrade a rollout queues: rollout-kill.test.ts (tests/helpers/upgrade-kill.ts is shared).
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t from 'tap'
import { installBox, installedVersion, keyPair, makeRelease, waitAnswers, startOrder, activeOrderNumbers } from '../helpers/upgrade-box.ts'
import { checkBooted, chooseSteps, killAt, killSteps } from '../helpers/upgrade-kill.ts'

const chosen = chooseSteps(t, 'UPGRADE_KILL', killSteps)

t.test('kill -9 at a step of an upgrade leaves a box that starts', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'upgk-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const key = keyPair(dir, 'chain')
  const box = await installBox(dir, key.publicFile)
  t.teardown(() => box.close())
  t.equal(await startOrder(box, 7, 3), 200)
  const orders = () => activeOrderNumbers(box)
  let running = installedVersion

  for (const [i, target] of chosen.entries()) {
    await t.test(`killed at ${target}`, async (t) => {
      const version = `0.${10 + i}.0`
      const archive = makeRelease(dir, version, { privatePem: key.privatePem, crashAtStart: target === 'rolling-back' })
      // Detached: its own process group, so the kill takes what it started (cp, the build, the backup).
      const upgrade = spawn(path.join(box.root, 'usr/local/bin/gateway'), ['upgrade', archive, '--health-timeout', '90', '--health-stable', '1'], {
        env: box.commandEnv(),
        detached: true,
        stdio: 'ignore',
      })
      const ended = new Promise((resolve) => upgrade.once('exit', resolve))
      const seen = await killAt(box, version, target, {
        ended: () => upgrade.exitCode !== null,
        kill: async () => {
          process.kill(-upgrade.pid!, 'SIGKILL')
          await ended
        },
      })
      t.comment(`killed at ${seen ?? 'before the journal'} (aimed at ${target})`)

      await box.service.start()
      running = await checkBooted(t, box, running, version)
      t.same(await orders(), [7], 'orders intact')
    })
  }

  await t.test('the next upgrade runs (no lock or leftovers in the way)', async (t) => {
    const archive = makeRelease(dir, '1.0.0', { privatePem: key.privatePem })
    const result = await box.gateway('upgrade', archive, '--health-timeout', '90', '--health-stable', '1')
    t.equal(result.status, 0, result.stderr)
    t.equal(await waitAnswers(box), '1.0.0')
    t.same(await orders(), [7])
  })
})
