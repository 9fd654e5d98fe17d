import t from 'tap'
import { HostAllowList, isCrossSite, refusal } from '../../../lib/api/request-guard.ts'

const hosts = HostAllowList.forHost('Kitchen-GW.example.lan', ['orders.myrestaurant.test'])
const headers = (values: Record<string, string>) => new Headers(values)
const check = (method: string, path: string, values: Record<string, string>) => refusal(method, path, headers(values), hosts)

t.test('the Host allow-list: IP literals, localhost, the hostname and its mDNS name, configured names', async (t) => {
  for (const host of [
    '127.0.0.1',
    '192.168.1.20:8000',
    '[::1]:8000',
    '[fe80::1]',
    'localhost:8000',
    'LOCALHOST',
    'kitchen-gw',
    'kitchen-gw.local',
    'Kitchen-GW.local.:8000',
    'kitchen-gw.example.lan',
    'kitchen-gw.example.lan.local',
    'orders.myrestaurant.test:80',
  ]) {
    t.ok(hosts.allows(host), host)
  }
  for (const host of ['evil.example', 'evil.example:8000', '127.0.0.1.nip.io', 'kitchen-gw.evil.example', 'localhost.evil', 'a b', '[::1', '[::1]x', '']) {
    t.notOk(hosts.allows(host), host)
  }
  t.ok(hosts.allows(null), 'an HTTP/1.0 request without Host')
  t.notOk(hosts.allows('evil.example'), 'the cached verdict is the same')
  const many = new HostAllowList([])
  for (let i = 0; i < 600; i++) t.equal(many.allows(`n${i}.example`), false)
  t.ok(many.allows('localhost'), 'still right after the verdict cache was cleared')
})

t.test('an unknown Host answers HOST_UNKNOWN on every path and method', async (t) => {
  t.equal(check('GET', '/api/v1/activeorders', { host: 'rebound.example:8000' }), 'HOST_UNKNOWN')
  t.equal(check('GET', '/', { host: 'rebound.example' }), 'HOST_UNKNOWN')
  t.equal(check('GET', '/api/v2', { host: 'rebound.example' }), 'HOST_UNKNOWN')
})

t.test('browser requests from another site are refused, except the open descriptions and static pages', async (t) => {
  const host = '192.168.1.20:8000'
  t.equal(check('POST', '/api/v1/activeorders', { host, 'sec-fetch-site': 'cross-site' }), 'CROSS_SITE_REFUSED')
  t.equal(check('POST', '/api/v1/activeorders', { host, 'sec-fetch-site': 'same-site' }), 'CROSS_SITE_REFUSED', 'another port of the same box')
  t.equal(check('GET', '/api/v1/register', { host, 'sec-fetch-site': 'cross-site' }), 'CROSS_SITE_REFUSED', 'an <img> registering a webhook')
  t.equal(check('GET', '/api/v1/activeorders', { host, 'sec-fetch-site': 'cross-site' }), 'CROSS_SITE_REFUSED', 'reads too')
  t.equal(check('DELETE', '/api/v2/activeorders/4', { host, origin: 'http://evil.example' }), 'CROSS_SITE_REFUSED', 'Origin alone (no Fetch Metadata)')
  t.equal(check('POST', '/api/v2/activeorders', { host, origin: 'null' }), 'CROSS_SITE_REFUSED', 'an opaque origin')
  t.equal(check('POST', '/api/v2/activeorders', { host, origin: 'http://192.168.1.20:9000' }), 'CROSS_SITE_REFUSED', 'another port')
  t.equal(check('POST', '/api/v2/activeorders', { origin: 'http://192.168.1.20:8000' }), 'CROSS_SITE_REFUSED', 'an Origin and no Host to match')
  t.equal(check('GET', '/api/v1', { host, 'sec-fetch-site': 'cross-site' }), undefined)
  t.equal(check('GET', '/api/v2/', { host, 'sec-fetch-site': 'cross-site' }), undefined)
  t.equal(check('GET', '/api/openapi.json', { host, 'sec-fetch-site': 'cross-site' }), undefined)
  t.equal(check('POST', '/api/v2', { host, 'sec-fetch-site': 'cross-site' }), 'CROSS_SITE_REFUSED', 'only reads of the descriptions')
  t.equal(check('GET', '/', { host, 'sec-fetch-site': 'cross-site' }), undefined, 'a link to the board')
  t.equal(check('GET', '/docs', { host, 'sec-fetch-site': 'cross-site' }), undefined)
})

t.test('a foreign Referer alone is a sign of another site (no Fetch Metadata to a plain-http LAN address, no Origin on an <img>)', async (t) => {
  const host = '192.168.1.20:8000'
  t.equal(check('GET', '/api/v1/register', { host, referer: 'http://192.168.1.66/page.html' }), 'CROSS_SITE_REFUSED', 'an <img> from a LAN host')
  t.equal(check('GET', '/api/v2/accesstoken/generate', { host, referer: 'http://evil.example/' }), 'CROSS_SITE_REFUSED')
  t.equal(check('POST', '/api/v1/activeorders', { host, referer: 'http://192.168.1.20:9000/' }), 'CROSS_SITE_REFUSED', 'another port')
  t.equal(check('GET', '/api/v1/activeorders', { host, referer: 'not a url' }), 'CROSS_SITE_REFUSED', 'an unreadable Referer')
  t.equal(check('GET', '/api/v1/activeorders', { host, referer: `http://${host}/docs` }), undefined, "the gateway's own page")
  t.equal(check('GET', '/api/v1', { host, referer: 'http://evil.example/' }), undefined, 'the open descriptions stay readable')
  t.equal(check('GET', '/assets/board.js', { host, referer: 'http://evil.example/' }), undefined, 'static files may be linked')
})

t.test("the gateway's own pages, typed addresses and non-browser clients pass", async (t) => {
  const host = '192.168.1.20:8000'
  t.equal(
    check('POST', '/api/v2/activeorders', { host, 'sec-fetch-site': 'same-origin', origin: 'http://192.168.1.20:8000', 'content-type': 'application/json' }),
    undefined,
  )
  t.equal(check('POST', '/api/v2/activeorders', { host: 'Kitchen-GW.local', origin: 'http://kitchen-gw.local' }), undefined, 'case differs')
  t.equal(check('POST', '/api/v2/activeorders', { host: 'kitchen-gw.local:80', origin: 'http://kitchen-gw.local' }), undefined, 'default port')
  t.equal(check('POST', '/api/v2/activeorders', { host: 'kitchen-gw.local', origin: 'https://kitchen-gw.local' }), undefined, 'behind a TLS proxy')
  t.equal(check('GET', '/api/v1/activeorders', { host, 'sec-fetch-site': 'none' }), undefined, 'typed in the address bar')
  t.equal(check('POST', '/api/v1/activeorders', { host }), undefined, 'a POS: no browser headers')
  t.equal(check('POST', '/api/v1/activeorders', {}), undefined, 'no headers at all')
  t.notOk(isCrossSite(headers({ host, origin: `http://${host}` })))
})

t.test('a body on a state-changing method must be declared as JSON (or not declared)', async (t) => {
  for (const type of [
    'text/plain;charset=UTF-8',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/jsonx',
    'text/json',
    '',
  ]) {
    t.equal(check('POST', '/api/v1/activeorders', { 'content-type': type }), 'CONTENT_TYPE_UNSUPPORTED', type)
  }
  t.equal(check('DELETE', '/api/v2/activeorders', { 'content-type': 'text/plain' }), 'CONTENT_TYPE_UNSUPPORTED')
  for (const type of ['application/json', 'Application/JSON; charset=utf-8', ' application/json ;charset=UTF-8']) {
    t.equal(check('POST', '/api/v2/activeorders', { 'content-type': type }), undefined, type)
  }
  t.equal(check('POST', '/api/v2/activeorders', {}), undefined, 'no Content-Type: a known POS quirk')
  t.equal(check('GET', '/api/v2/activeorders', { 'content-type': 'text/plain' }), undefined, 'GET bodies are never read')
})
