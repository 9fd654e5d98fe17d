// The certificate made in a short-lived process: the same certificate makeSelfSigned makes,
// the key kept when given, a failure reported with its reason, and the ASN.1 modules never
// imported by a module the gateway loads (only by the child).
import { readFileSync } from 'node:fs'
import { getPriority } from 'node:os'
import path from 'node:path'
import t from 'tap'
import { describeCertificate } from '../../../../runtime/host/tls/certificate-info.ts'
import { childNiceness, makeSelfSignedInChild } from '../../../../runtime/host/tls/self-signed-process.ts'
import { productSources, projectRoot as root } from '../../../helpers/source-files.ts'

const now = new Date('2026-11-25T12:00:00Z')

t.test('the child makes the certificate for the names, with the key it is given', async (t) => {
  const first = await makeSelfSignedInChild({ names: ['pass-box', 'localhost'], addresses: ['127.0.0.1', '192.168.1.20'], now })
  const info = describeCertificate(first.certPem)
  t.same(info.subjectAltNames, ['DNS:pass-box', 'DNS:localhost', 'IP Address:127.0.0.1', 'IP Address:192.168.1.20'])
  t.equal(info.validFrom.getTime(), now.getTime() - 60 * 60 * 1000, 'the time it was given, not its own')
  const again = await makeSelfSignedInChild({ names: ['pass-box'], addresses: ['10.0.0.7'], keyPem: first.keyPem, now })
  t.equal(describeCertificate(again.certPem).spkiSha256, info.spkiSha256, 'the same key')
})

t.test('the child runs below the priority of the process that starts it', async (t) => {
  const seen: number[] = []
  // Watch the child's niceness while it runs (it lives a few hundred ms).
  const made = makeSelfSignedInChild({ names: ['box'], addresses: [], now })
  for (let i = 0; i < 200 && seen.length === 0; i++) {
    const pids = readChildPids()
    for (const pid of pids) {
      try {
        seen.push(getPriority(pid))
      } catch {
        // gone already
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  await made
  t.ok(seen.length > 0, 'saw the child')
  const expected = Math.min(19, getPriority() + childNiceness)
  t.ok(
    seen.every((nice) => nice === expected),
    `niceness ${seen.join(', ')}, expected ${expected}`,
  )
})

/** This process's children, from /proc (Linux). */
function readChildPids(): number[] {
  try {
    return readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
  } catch {
    return []
  }
}

t.test('a key the child cannot read is an error that says why', async (t) => {
  await t.rejects(makeSelfSignedInChild({ names: ['box'], addresses: [], keyPem: 'not a key', now }), /^making the certificate failed: \w*Error/)
})

t.test('a child that hangs is killed at the deadline', async (t) => {
  // No stdin end is not possible from outside, so the deadline is made shorter than a start.
  await t.rejects(makeSelfSignedInChild({ names: ['box'], addresses: [], now }, 1), /making the certificate failed: killed by SIGTERM/)
})

t.test('only the child takes the code of self-signed.ts (and with it the ASN.1 modules)', async (t) => {
  // Statements start a line with import/export (the sources use no semicolons).
  const takesCode = (text: string) =>
    text.split(/\n(?=import|export)/).some((statement) => /^(?:import|export)\s(?!type\s)[\s\S]*?from\s+'\.\/self-signed\.ts'/.test(statement)) ||
    /import\(\s*'[^']*self-signed\.ts'\s*\)/.test(text)
  const importers = productSources()
    .filter((file) => takesCode(readFileSync(file, 'utf8')))
    .map((file) => path.relative(root, file))
  t.same(importers, ['runtime/host/tls/self-signed-child.ts'])
  const asn1 = productSources()
    .filter((file) => /from\s+['"]@peculiar\//.test(readFileSync(file, 'utf8')))
    .map((file) => path.relative(root, file))
  t.same(asn1, ['runtime/host/tls/self-signed.ts'])
})
