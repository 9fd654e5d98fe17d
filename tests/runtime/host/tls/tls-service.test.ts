// The TLS service on a real host: the port rule, the box's own certificate followed to new
// addresses (same key, served at once), and what it does once stopped.
import t from 'tap'
import { parseConfig } from '../../../../lib/config.ts'
import { TlsStatusHolder } from '../../../../lib/gateway/tls-status.ts'
import { createHttpHost } from '../../../../runtime/host/http.ts'
import { buildRouter } from '../../../../runtime/host/router.ts'
import { tlsPart, tlsPortOf, TlsService } from '../../../../runtime/host/tls/tls-service.ts'
import { testGateway } from '../../../helpers/gateway.ts'
import { memoryLogger } from '../../../helpers/memory-logger.ts'
import { readdirSync, readFileSync } from 'node:fs'
import { childrenCpuTicks } from '../../../helpers/cpu-progress.ts'
import { untilProgress } from '../../../helpers/until.ts'

t.test('the HTTPS port: tls.port, else 8443, else any free one when the plain port is 0', async (t) => {
  t.equal(tlsPortOf(parseConfig({})), 8443)
  t.equal(tlsPortOf(parseConfig({ port: 8080 })), 8523, 'beside another plain port, so two gateways on one machine do not collide')
  t.equal(tlsPortOf(parseConfig({ port: 65500 })), 0, 'no port beside: any free one')
  t.equal(tlsPortOf(parseConfig({ port: 0 })), 0)
  t.equal(tlsPortOf(parseConfig({ port: 0, tls: { port: 9443 } })), 9443)
  t.equal(tlsPortOf(parseConfig({ port: 8080, tls: { port: 0 } })), 0)
})

/** This process's children that are making a certificate now. */
function certificateChildren(): number {
  return readdirSync('/proc').filter((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      return ppid === process.pid && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('self-signed-child')
    } catch {
      return false // not a process, or gone meanwhile
    }
  }).length
}

t.test("the box's own certificate follows a new address with the same key, served at once", async (t) => {
  const gw = await testGateway()
  const host = createHttpHost(buildRouter([], gw.services), gw.services.log, { tls: true })
  t.teardown(() => host.close(100))
  const config = parseConfig({ port: 0, host: '127.0.0.1', dataDir: t.testdir() })
  let addresses = ['127.0.0.1']
  const status = new TlsStatusHolder()
  const logs = memoryLogger('info')
  const service = new TlsService({ config, host, status, log: logs.log, names: () => ({ names: ['box', 'localhost'], addresses }), addressCheckMs: 20 })
  const part = tlsPart(service)
  await part.start()
  let stopped = false
  t.teardown(() => (stopped ? undefined : part.stop()))
  const first = status.get()!
  t.equal(first.port, service.port)
  t.ok(first.port > 0)
  t.notOk(first.subjectAltNames.includes('IP Address:10.20.30.40'))
  t.match(logs.text(), `"msg":"board: https://127.0.0.1:${service.port}/"`, 'the log says where the board is over HTTPS')
  addresses = ['127.0.0.1', '10.20.30.40']
  // The certificate is made by a child process running below the test's priority: on a
  // loaded machine it may wait its turn for minutes; the wait fails only when it gets no CPU.
  // Address checks come every 20 ms, far faster than a child makes a certificate: while one
  // is at work no other may start (each would be one more process on a busy box).
  let mostAtOnce = 0
  await untilProgress(
    () => {
      mostAtOnce = Math.max(mostAtOnce, certificateChildren())
      return status.get()!.fingerprintSha256 !== first.fingerprintSha256
    },
    childrenCpuTicks,
    'the reissued certificate',
  )
  t.equal(mostAtOnce, 1, 'one certificate child at a time')
  const moved = status.get()!
  t.ok(moved.subjectAltNames.includes('IP Address:10.20.30.40'))
  t.equal(moved.spkiSha256, first.spkiSha256, 'the same key: a pinned client keeps trusting the box')
  t.match(logs.text(), /reissued the box's own TLS certificate \(same key\)/)
  await part.stop()
  stopped = true
  t.equal(status.get(), null, 'no status once stopped')
  await tlsPart(undefined).start()
  await tlsPart(undefined).stop()
})
