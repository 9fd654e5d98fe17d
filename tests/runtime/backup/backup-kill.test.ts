// A gateway killed (SIGKILL) in the middle of a backup of a large history, once while the
// history is being copied and once while the archive is being written: the older backup is
// still whole, no file looks complete that is not, and the next backup clears what was left.
import t from 'tap'
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { HistoryStore } from '../../../lib/history/store.ts'
import { verifyBackup } from '../../../lib/backup/verify.ts'
import { runCli, startGatewayProcess } from '../../helpers/process.ts'
import { until } from '../../helpers/until.ts'

t.test('SIGKILL during a backup leaves the older backup good and nothing that looks whole', async (t) => {
  const root = t.testdir()
  const dataDir = path.join(root, 'data')
  const target = path.join(root, 'backups')
  mkdirSync(dataDir)
  mkdirSync(target)
  // A history large enough that the backup takes a moment (the kill may still land after
  // it: the checks hold either way, and the comment says where it landed).
  const history = new HistoryStore(path.join(dataDir, 'history.sqlite'))
  for (let batch = 0; batch < 15; batch++) {
    history.insertMany(
      Array.from({ length: 10_000 }, (_, i) => ({
        uuid: `u-${batch}-${i}`,
        name: (i % 999) + 1,
        orderType: 'TO_GO' as const,
        locationName: i % 40,
        orderStarted: 1_700_000_000_000 + i,
        orderLocated: null,
        orderCleared: 1_700_000_100_000 + i,
      })),
    )
  }
  history.close()
  let gateway = await startGatewayProcess(dataDir)
  t.teardown(() => gateway.stop('SIGKILL'))
  const env = { GATEWAY_DATA_DIR: dataDir }
  const older = path.join(target, 'older.tar')
  t.equal((await runCli(['backup', '--to', older], env)).code, 0)

  writeFileSync(path.join(root, 'p'), 'pass\n')
  const whole = () => readdirSync(target).filter((n) => !n.includes('.partial'))
  for (let round = 0; round < 2; round++) {
    const before = whole().length
    const leftOver = new Set(readdirSync(target))
    const running = runCli(['backup', '--to', target, '--passphrase-file', path.join(root, 'p')], env)
    // Round 0 is killed while the history is copied, round 1 once the archive is being written.
    const underWay = (n: string) => !leftOver.has(n) && (round === 0 ? n.includes('.partial') : n.endsWith('.tar.enc.partial'))
    await until(() => readdirSync(target).some(underWay) || whole().length > before, 'the backup under way', 60_000)
    await gateway.stop('SIGKILL')
    const answer = await running
    const finished = whole().length > before
    t.comment(finished ? 'the kill landed after the rename' : `killed mid-write: ${readdirSync(target).join(', ')}`)
    if (!finished) t.match(answer.stderr, /closed the connection before answering|cannot reach/)
    for (const name of whole()) {
      t.ok(await verifyBackup(path.join(target, name), { passphrase: name.endsWith('.enc') ? 'pass' : undefined }), `${name} is whole`)
    }
    t.equal((await verifyBackup(older)).counts.historyRows, 150_000, 'the older backup is good')
    gateway = await startGatewayProcess(dataDir)
  }
  // The next backup in the directory clears what the killed ones left.
  const next = await runCli(['backup', '--to', target], env)
  t.equal(next.code, 0, next.stderr)
  t.same(
    readdirSync(target).filter((n) => n.includes('.partial') && n.startsWith('gateway-backup-')),
    [],
  )
})
