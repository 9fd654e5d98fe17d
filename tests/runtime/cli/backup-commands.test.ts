// `gateway backup`, `gateway backup verify` and `gateway restore` as a person runs them,
// against a real gateway process (a kill during a backup: tests/runtime/backup/backup-kill.test.ts).
import t from 'tap'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { spkiPin } from '../../helpers/pinned-https.ts'
import { runCli, startGatewayProcess } from '../../helpers/process.ts'
import { describeBackupStatus } from '../../../runtime/cli/backup-commands.ts'

t.test('backup, verify and restore from the command line', async (t) => {
  const root = t.testdir({ 'pass.txt': 'a long passphrase\n', 'wrong.txt': 'not it\n' })
  const dataDir = path.join(root, 'data')
  const gateway = await startGatewayProcess(dataDir)
  t.teardown(() => gateway.stop('SIGKILL'))
  const env = { GATEWAY_DATA_DIR: dataDir }
  // The webhook signing key is made at its first use: the JWKS route asks for it.
  const jwks = (await (await fetch(`${gateway.url}/api/v2/register/jwks`)).json()) as { keys: { kid: string }[] }
  const plain = path.join(root, 'plain.tar')
  const made = await runCli(['backup', '--to', plain], env)
  t.equal(made.code, 0, made.stderr)
  t.match(made.stdout, /backup written: .*plain\.tar \(\d+ bytes\)\ntaken .* at seq 0\n0 active orders, 0 history rows/)
  const status = await runCli(['status'], env)
  t.match(status.stdout, /backups: none scheduled[^]*\nlast backup: \d{4}-.*plain\.tar \(\d+ bytes\)/)
  const verified = await runCli(['backup', 'verify', plain])
  t.equal(verified.code, 0, verified.stderr)
  t.match(verified.stdout, /is whole: taken/)
  // It says what the backup holds that clients pinned or trusted: the box's TLS key by its pin.
  const pin = spkiPin(readFileSync(path.join(dataDir, 'tls', 'self-signed.crt')))
  t.ok(verified.stdout.includes(`TLS: the box's own certificate with its private key, public key pin (SPKI SHA-256) ${pin}`), verified.stdout)
  t.ok(verified.stdout.includes(`webhook signing key (JWKS kid) ${jwks.keys[0]!.kid}, with its private key`), 'and the webhook signing key by its kid')
  const older = await runCli(['backup', 'verify', fileURLToPath(new URL('../../lib/backup/fixtures/format-1.tar', import.meta.url))])
  t.equal(older.code, 0, older.stderr)
  t.match(older.stdout, /warning: written by an older gateway \(backup format 1\): its manifest has no checksum of its own[^]*warning: it holds no TLS key/)

  const sealed = path.join(root, 'sealed.tar.enc')
  t.equal((await runCli(['backup', '--to', sealed, '--passphrase-file', path.join(root, 'pass.txt')], env)).code, 0)
  const wrong = await runCli(['backup', 'verify', sealed, '--passphrase-file', path.join(root, 'wrong.txt')])
  t.equal(wrong.code, 1)
  t.match(wrong.stderr, /gateway backup: wrong passphrase for this backup/)
  t.match((await runCli(['backup', 'verify', sealed])).stderr, /encrypted: give its passphrase/)
  t.match((await runCli(['backup', 'nonsense'])).stderr, /usage: gateway backup/)

  const refused = await runCli(['restore', plain, '--replace'], env)
  t.equal(refused.code, 2, 'a running gateway is never restored over')
  t.match(refused.stderr, /in use by the gateway/)
  t.match((await runCli(['restore'], env)).stderr, /usage: gateway restore FILE/)

  const restored = await runCli(['restore', sealed, '--data-dir', path.join(root, 'new'), '--passphrase-file', path.join(root, 'pass.txt')])
  t.equal(restored.code, 0, restored.stderr)
  t.match(restored.stdout, /restored .*sealed\.tar\.enc into .*new\n[^]*change numbers \(seq\) continue above \d{16}[^]*no order was active/)
})

t.test('gateway status words every backup state', async (t) => {
  const base = { scheduled: true, directory: '/mnt/usb', at: '03:30', keep: 7, nextAt: '2026-11-23T03:30:00+01:00', running: false, last: null, lastGood: null, warning: null }
  const good = { at: '2026-11-20T03:30:00+01:00', trigger: 'schedule' as const, ok: true, file: '/mnt/usb/a.tar', bytes: 10, reason: null }
  t.same(describeBackupStatus(base), ['backups: daily at 03:30 into /mnt/usb, 7 kept, next 2026-11-23T03:30:00+01:00', 'last backup: never'])
  t.same(describeBackupStatus({ ...base, running: true, last: good, lastGood: good, warning: 'stale', nextAt: null }), [
    'backups: daily at 03:30 into /mnt/usb, 7 kept', 'backup running now', 'last backup: 2026-11-20T03:30:00+01:00, /mnt/usb/a.tar (10 bytes)', 'warning: the last good backup is more than two days old',
  ])
  const failed = { ...good, at: '2026-11-22T03:30:00+01:00', ok: false, file: null, bytes: null, reason: 'ENOSPC' }
  t.same(describeBackupStatus({ ...base, last: failed, lastGood: good, warning: 'failed' }).slice(1), ['last backup FAILED: 2026-11-22T03:30:00+01:00: ENOSPC; last good one 2026-11-20T03:30:00+01:00, /mnt/usb/a.tar'])
  t.same(describeBackupStatus({ ...base, scheduled: false, last: failed, warning: 'failed' }), ['backups: none scheduled (gateway.config.json "backup.directory")', 'last backup FAILED: 2026-11-22T03:30:00+01:00: ENOSPC'])
})
