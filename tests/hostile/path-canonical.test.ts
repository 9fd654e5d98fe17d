// The request guard and the router judge one path (issue 25): a target the URL parser would
// restructure (/assets/../api/v1/activeorders, %2e%2e, /./, //, backslashes) is refused with
// 400 -49 before anything else, by the fast host and the reference host alike, sent as is on a
// real socket (what `curl --path-as-is` sends). With a foreign Origin it created an order before.
import net from 'node:net'
import t from 'tap'
import { twoHosts } from '../helpers/two-hosts.ts'
import { checkedRouter } from '../helpers/documented-responses.ts'

const body = '{"name":"7001","orderType":"TO_GO"}'
const json = { 'content-type': 'application/json' }
const foreign = { ...json, origin: 'http://evil.example' }

t.test('a path with dot segments, empty segments or backslashes is refused by both hosts and changes nothing', async (t) => {
  const hosts = await twoHosts()
  t.teardown(() => hosts.close())
  const targets = [
    '/assets/../api/v1/activeorders?dummy_tracker_address=true',
    '/assets/%2e%2e/api/v1/activeorders?dummy_tracker_address=true',
    '/assets/%2E%2E/api/v1/activeorders?dummy_tracker_address=true',
    '/assets/.%2e/api/v1/activeorders?dummy_tracker_address=true',
    '/api/v1/./activeorders?dummy_tracker_address=true',
    '/./api/v1/activeorders?dummy_tracker_address=true',
    '/api/v1/activeorders/../activeorders?dummy_tracker_address=true',
    '//api/v1/activeorders?dummy_tracker_address=true',
    '/api/v1//activeorders?dummy_tracker_address=true',
    '/assets\\..\\api/v1/activeorders?dummy_tracker_address=true',
    '/x/../api/v2/activeorders?dummy_tracker_address=true',
  ]
  for (const target of targets) {
    for (const headers of [foreign, json]) {
      const { fast, reference } = await hosts.send('POST', target, headers, body)
      t.equal(fast.status, 400, `fast host: ${target}${headers === foreign ? ' with a foreign Origin' : ''}`)
      t.same(reference, fast, `reference host answers alike: ${target}`)
    }
  }
  const v2 = await hosts.send('POST', '/x/../api/v2/activeorders', json, body)
  t.match(JSON.parse(v2.fast.body), { status: 400, returnCode: -49 })
  const v1 = await hosts.send('GET', '/api/v1/../v1/activeorders')
  t.same(JSON.parse(v1.fast.body), { status: 400, message: 'Path must not contain "." or ".." segments, "//" or "\\"' }, 'a v1 path gets the v1 envelope')
  t.equal(hosts.fast.orders.list().length, 0, 'no order created on the fast host')
  t.equal(hosts.reference.orders.list().length, 0, 'nor on the reference host')

  // The canonical path: refused with the foreign Origin, served without.
  const cross = await hosts.send('POST', '/api/v1/activeorders?dummy_tracker_address=true', foreign, body)
  t.equal(cross.fast.status, 403)
  t.same(cross.reference, cross.fast)
  const plain = await hosts.send('POST', '/api/v1/activeorders?dummy_tracker_address=true', json, body)
  t.equal(plain.fast.status, 200, 'a POS sending the plain path is served')
  t.equal(hosts.fast.orders.list().length, 1)
})

t.test('the same on a bare socket, byte for byte as curl --path-as-is sends it', async (t) => {
  const hosts = await twoHosts()
  t.teardown(() => hosts.close())
  // twoHosts hides its ports; its send() is node's http client, which sends the path as given.
  // A raw write is checked here against the fast host through a server of its own.
  const { createHttpHost } = await import('../../runtime/host/http.ts')
  const { buildRouter } = await import('../../runtime/host/router.ts')
  const { manifest } = await import('../../functions/_manifest.gen.ts')
  const host = createHttpHost(
    checkedRouter(buildRouter(manifest, hosts.fast), (problem) => t.fail(problem)),
    hosts.fast.log,
  )
  const port = await host.listen(0, '127.0.0.1')
  t.teardown(() => host.close(100))
  const raw = [
    'POST /assets/../api/v1/activeorders?dummy_tracker_address=true HTTP/1.1',
    `Host: 127.0.0.1:${port}`,
    'Origin: http://evil.example',
    'Content-Type: application/json',
    `Content-Length: ${body.length}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n')
  const answer = await new Promise<string>((resolve) => {
    let text = ''
    const socket = net.connect(port, '127.0.0.1', () => socket.write(raw))
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => (text += chunk))
    socket.on('close', () => resolve(text))
  })
  t.match(answer, /^HTTP\/1\.1 400 /)
  t.equal(hosts.fast.orders.list().length, 0)
})
