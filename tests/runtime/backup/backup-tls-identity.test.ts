// A restored box is the same box to a client that pinned it: the TLS keys and certificates
// (the box's own and one installed with `gateway tls install`) are in the backup, owner-only,
// named in its manifest by their pins, and served again by the gateway started on a fresh
// data dir restored from it.
import t from 'tap'
import { readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { parseConfig } from '../../../lib/config.ts'
import { verifyBackup } from '../../../lib/backup/verify.ts'
import { sendControl } from '../../../runtime/control/control.ts'
import { restoreBackup } from '../../../runtime/backup/restore.ts'
import { makeSelfSigned } from '../../../runtime/host/tls/self-signed.ts'
import { startGateway, type RunningGateway } from '../../../runtime/wiring/main.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { PinMismatch, pinnedJson, spkiPin } from '../../helpers/pinned-https.ts'

async function start(dataDir: string): Promise<RunningGateway> {
  const config = parseConfig({ port: 0, host: '127.0.0.1', dataDir, mdns: { enabled: false } })
  return startGateway({ config, log: memoryLogger('warn').log })
}

t.test('a pinned HTTPS client trusts the box restored from a backup as it trusted the original', async (t) => {
  const root = t.testdir()
  const oldDir = path.join(root, 'old')
  const newDir = path.join(root, 'new')
  const original = await start(oldDir)
  let restored: RunningGateway | undefined
  t.teardown(async () => {
    await original.stop().catch(() => {})
    await restored?.stop().catch(() => {})
  })
  // The box's own certificate: its pin, as `gateway tls status` shows it.
  const ownPin = spkiPin(readFileSync(path.join(oldDir, 'tls', 'self-signed.crt')))
  const own = await pinnedJson(original.securePort!, ownPin, 'GET', '/api/v2/gateway/tls')
  t.equal(own.status, 200)
  t.equal(own.body.tls.spkiSha256, ownPin, 'the pin the API shows is the served key\'s')
  // The restaurant's IT installs a certificate of its own: clients pin that one.
  const installed = makeSelfSigned({ names: ['orders.restaurant.lan', 'localhost'], addresses: ['127.0.0.1'], now: new Date() })
  await sendControl(oldDir, 'tls.install', { cert: installed.certPem, key: installed.keyPem })
  const installedPin = spkiPin(installed.certPem)
  t.not(installedPin, ownPin)
  t.equal((await pinnedJson(original.securePort!, installedPin, 'GET', '/api/v2/gateway/tls')).body.tls.source, 'installed', 'the original serves the installed certificate')

  const file = path.join(root, 'box.tar')
  await sendControl(oldDir, 'backup.run', { to: file }, 120_000)
  t.equal(statSync(file).mode & 0o777, 0o600, 'the backup holding the private keys is owner-only')
  await original.stop()

  await restoreBackup({ file, dataDir: newDir })
  t.equal(statSync(path.join(newDir, 'tls')).mode & 0o777, 0o700)
  for (const name of ['self-signed.key', 'self-signed.crt', 'installed.key', 'installed.crt']) t.equal(statSync(path.join(newDir, 'tls', name)).mode & 0o777, 0o600, `tls/${name} is restored owner-only`)
  restored = await start(newDir)
  const again = await pinnedJson(restored.securePort!, installedPin, 'GET', '/api/v2/gateway/tls')
  t.equal(again.status, 200, 'the client that pinned the installed certificate trusts the restored box')
  t.match(again.body.tls, { source: 'installed', spkiSha256: installedPin })
  await t.rejects(pinnedJson(restored.securePort!, ownPin, 'GET', '/api/v2/gateway/tls'), PinMismatch, 'the pin is checked: another key is refused')
  // Back to the box's own certificate: the key of the original box, not a new one.
  await sendControl(newDir, 'tls.remove')
  const ownAgain = await pinnedJson(restored.securePort!, ownPin, 'GET', '/api/v2/gateway/tls')
  t.match(ownAgain.body.tls, { source: 'self-signed', spkiSha256: ownPin }, 'the box\'s own key came back too')
  const manifest = await verifyBackup(file)
  t.same(manifest.tls!.map((c) => [c.source, c.spkiSha256]).sort(), [['installed', installedPin], ['self-signed', ownPin]], 'backup verify names both certificates by their pins')
  t.equal(manifest.counts.tlsFiles, 4)
})
