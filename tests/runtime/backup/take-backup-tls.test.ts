// The TLS files a backup takes (runtime/backup/take-backup.ts readTlsFiles): each pair whose
// key is its certificate's, described by its pin; a pair caught between the two writes of an
// install is read again; one that stays broken is left out with a warning, not the backup.
import t from 'tap'
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { readTlsFiles } from '../../../runtime/backup/take-backup.ts'
import { makeSelfSigned } from '../../../runtime/host/tls/self-signed.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { spkiPin } from '../../helpers/pinned-https.ts'

const pair = () => makeSelfSigned({ names: ['localhost'], addresses: ['127.0.0.1'], now: new Date() })

t.test('no tls folder: nothing', async (t) => {
  t.same(await readTlsFiles(t.testdir()), { files: new Map(), certificates: [] })
})

t.test('the pairs that go together, by their pins; a broken one left out with a warning', async (t) => {
  const dataDir = t.testdir()
  mkdirSync(path.join(dataDir, 'tls'))
  const own = pair()
  const installed = pair()
  const write = (name: string, text: string) => writeFileSync(path.join(dataDir, 'tls', name), text)
  write('self-signed.key', own.keyPem)
  write('self-signed.crt', own.certPem)
  write('installed.key', pair().keyPem) // another key: an install caught half-way
  write('installed.crt', installed.certPem)
  const logs = memoryLogger()
  const broken = await readTlsFiles(dataDir, logs.log)
  t.same([...broken.files.keys()].sort(), ['self-signed.crt', 'self-signed.key'])
  t.match(broken.certificates, [{ source: 'self-signed', spkiSha256: spkiPin(own.certPem) }])
  t.match(logs.text(), /do not go together are left out of the backup/)

  // The install finishes while the backup reads: read again, both pairs are in.
  write('installed.key', pair().keyPem)
  setTimeout(() => write('installed.key', installed.keyPem), 150)
  const whole = await readTlsFiles(dataDir)
  t.same([...whole.files.keys()].sort(), ['installed.crt', 'installed.key', 'self-signed.crt', 'self-signed.key'])
  t.same(whole.certificates.map((c) => [c.source, c.spkiSha256]), [['self-signed', spkiPin(own.certPem)], ['installed', spkiPin(installed.certPem)]])
})
