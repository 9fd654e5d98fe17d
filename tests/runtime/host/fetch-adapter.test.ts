// The @whatwg-node/server adapter as a fetch handler: prefix mounting, and a gateway started
// with it as its host (`gateway start --reference-host`).
import t from 'tap'
import { parseConfig } from '../../../lib/config.ts'
import { memoryLogger } from '../../helpers/memory-logger.ts'
import { createGatewayAdapter } from '../../../runtime/host/fetch-adapter.ts'
import { startCheckedGateway } from '../../helpers/checked-gateway.ts'
import { testGateway } from '../../helpers/gateway.ts'

t.test('a prefix is stripped; paths outside it are not found', async (t) => {
  const gw = await testGateway()
  const adapter = await createGatewayAdapter(gw.services, { prefix: '/tracker/' })
  const inside = await adapter.fetch(new Request('http://app.test/tracker/api/v2'))
  t.match(await inside.json(), { status: 200, returnCode: 20 })
  t.equal(
    inside.headers.get('content-length'),
    String(Buffer.byteLength(JSON.stringify(await (await adapter.fetch(new Request('http://app.test/tracker/api/v2'))).json()))),
  )
  const outside = await adapter.fetch(new Request('http://app.test/trackerx/api/v2'))
  t.equal(outside.status, 404)
  t.match(await outside.json(), { returnCode: -5 })
  const posted = await adapter.fetch(
    new Request('http://app.test/tracker/api/v2/activeorders', {
      method: 'POST',
      body: '{',
      headers: { authorization: `Bearer ${await gw.issueToken()}`, 'content-type': 'application/json' },
    }),
  )
  t.match(await posted.json(), { status: 400, returnCode: -31 }, 'the body reaches the router')
  await t.rejects(createGatewayAdapter(gw.services, { prefix: 'no slash' }), /prefix "no slash" must be a plain path/)
  const plain = await createGatewayAdapter(gw.services)
  t.match(await (await plain.fetch(new Request('http://app.test/api/v1'))).json(), { status: 200, apiVersion: 'v1' })
})

t.test('a gateway started with the reference host answers through the adapter', async (t) => {
  const config = parseConfig({ dataDir: t.testdir({}), host: '127.0.0.1', port: 0, mdns: { enabled: false } })
  const gateway = await startCheckedGateway({ config, log: memoryLogger('warn').log, httpHost: 'reference' })
  t.teardown(() => gateway.stop())
  const response = await fetch(`http://127.0.0.1:${gateway.port}/api/v2`)
  t.match(await response.json(), { status: 200, returnCode: 20 })
  t.equal(response.statusText, 'OK')
})
