// The board's radio pill and network map picture (web/board/network-map.js): pure functions,
// tested on plain data as GET /api/v2/gateway and GET /api/v2/radio/map answer it.
import t from 'tap'
// @ts-expect-error: a plain browser ES module without types
import { linkBand, networkMapNotes, networkMapSvg, radioPill, setupNetworkMap } from '../../../web/board/network-map.js'

const coordinator = { address: '00:12:4b:00:01:02:03:04', networkAddress: 0, type: 'Coordinator', role: null, model: null }
const repeater = { address: '00:12:4b:00:11:22:33:44', networkAddress: 0x4321, type: 'Router', role: 'repeater', model: 'REPEATER-2' }
const tracker = { address: '00:12:4b:00:aa:bb:cc:dd', networkAddress: 0x1234, type: 'EndDevice', role: 'tracker', model: '<script>alert(1)</script>' }
const silent = { address: '00:12:4b:00:99:88:77:66', networkAddress: 0x6666, type: 'Router', role: 'repeater', model: 'REPEATER-2' }

t.test('link quality bands', async (t) => {
  t.equal(linkBand(255), 'good')
  t.equal(linkBand(150), 'good')
  t.equal(linkBand(149), 'fair')
  t.equal(linkBand(80), 'fair')
  t.equal(linkBand(79), 'poor')
  t.equal(linkBand(0), 'poor')
})

t.test('the map: a node per device, one line per pair at its weaker direction, device texts escaped, silent routers marked', async (t) => {
  const map = {
    at: 0,
    nodes: [coordinator, repeater, tracker, silent],
    links: [
      { from: coordinator.address, to: repeater.address, linkQuality: 210, relationship: 'child', depth: 1 },
      { from: repeater.address, to: coordinator.address, linkQuality: 190, relationship: 'parent', depth: 0 },
      { from: repeater.address, to: tracker.address, linkQuality: 40, relationship: 'child', depth: 2 },
      { from: coordinator.address, to: silent.address, linkQuality: 100, relationship: 'child', depth: 1 },
    ],
    unanswered: [{ address: silent.address, error: 'no answer' }],
  }
  const svg: string = networkMapSvg(map)
  t.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 640 640" role="img" aria-label="Zigbee network map: 4 devices, 3 links">/)
  t.equal(svg.match(/<g class="node"/g)?.length, 4)
  t.equal(svg.match(/<g class="link"/g)?.length, 3, 'coordinator-repeater drawn once')
  t.match(svg, /<g class="link" data-band="good">.*?>190<\/text>/, 'the weaker direction of the pair')
  t.match(svg, /data-band="poor"><line [^>]*stroke-dasharray="5 4"\/>/)
  t.match(svg, /data-band="fair"/)
  t.notMatch(svg, /<script>/, 'a model name cannot inject markup')
  t.match(svg, /&lt;script&gt;alert\(1\)&lt;\/script&gt; …cc:dd/)
  t.match(svg, /data-address="00:12:4b:00:99:88:77:66" data-silent="true"><title>[^<]*did not give its neighbours<\/title>/)
  t.match(svg, />coordinator<\/text>/)
  t.same(networkMapNotes(map), [
    'Link quality: green 150 and up, amber 80–149, red (dashed) under 80. A device far from every router needs a repeater between.',
    '00:12:4b:00:99:88:77:66 did not give its neighbours: no answer',
  ])
  t.match(networkMapNotes({ nodes: [coordinator], links: [], unanswered: [] }).at(-1), 'No router reported a neighbour yet.')
  t.match(networkMapSvg({ nodes: [], links: [], unanswered: [] }), /aria-label="Zigbee network map: 0 devices, 0 links"/)
})

t.test(
  'the radio pill: "simulated" for the simulated restaurant; hidden until the status is known; up with the coordinator; down with the reason',
  async (t) => {
    t.match(radioPill({ radioKind: 'simulated', radioUp: true }), { hidden: false, text: 'radio: simulated', state: 'disabled', title: /simulated/ })
    t.match(radioPill(undefined), { hidden: true })
    const coordinatorInfo = {
      type: 'zStack3x0',
      firmware: '20230507',
      eui64: coordinator.address,
      backup: { takeover: 'a blank zstack stick takes the network over' },
    }
    t.same(radioPill({ radioKind: 'zigbee', radioUp: true, coordinator: coordinatorInfo }), {
      hidden: false,
      text: 'radio up',
      state: 'live',
      title: 'zStack3x0, firmware 20230507, IEEE 00:12:4b:00:01:02:03:04. Replacement stick: a blank zstack stick takes the network over',
    })
    const refusal = 'coordinator_backup.json was written by a Z-Stack coordinator, and an EmberZNet stick (adapter ember) cannot take over that network.'
    const down = radioPill({ radioKind: 'zigbee', radioUp: false, coordinator: null, radioProcess: { lastError: refusal } })
    t.equal(down.text, `radio down: ${refusal.slice(0, 57)}…`)
    t.equal(down.state, 'reconnecting')
    t.equal(down.title, `${refusal}\nCoordinator not seen yet`, 'the whole reason on hover')
    t.match(radioPill({ radioKind: 'zigbee', radioUp: false, radioProcess: { lastError: null } }), { text: 'radio down: starting' })
    t.match(radioPill({ radioKind: 'zigbee', radioUp: false, radioProcess: { lastError: 'no such port' } }), { text: 'radio down: no such port' })
  },
)

/** Just enough of the DOM for the dialog's wiring: listeners by event, children by append. */
class FakeElement {
  textContent = ''
  innerHTML = ''
  children: FakeElement[] = []
  open = false
  readonly listeners = new Map<string, () => void>()
  readonly parts = new Map<string, FakeElement>()
  addEventListener(event: string, listener: () => void) {
    this.listeners.set(event, listener)
  }
  click() {
    this.listeners.get('click')?.()
  }
  replaceChildren() {
    this.children = []
  }
  append(child: FakeElement) {
    this.children.push(child)
  }
  showModal() {
    this.open = true
  }
  close() {
    this.open = false
  }
  querySelector(selector: string) {
    return this.parts.get(selector) ?? null
  }
}

t.test('the Network button opens the dialog and draws the map; "Ask again" asks again; an error goes to onError', async (t) => {
  ;(globalThis as { document?: unknown }).document = { createElement: () => new FakeElement() }
  t.teardown(() => void delete (globalThis as { document?: unknown }).document)
  const button = new FakeElement()
  const dialog = new FakeElement()
  const close = new FakeElement()
  const reload = new FakeElement()
  dialog.parts.set('[data-close]', close)
  dialog.parts.set('[data-reload]', reload)
  const picture = new FakeElement()
  const notes = new FakeElement()
  const errors: unknown[] = []
  const asked: string[] = []
  let fail = false
  const api = async (method: string, path: string) => {
    asked.push(`${method} ${path}`)
    if (fail) throw new Error('radio down')
    return { map: { at: 0, nodes: [coordinator, tracker], links: [{ from: coordinator.address, to: tracker.address, linkQuality: 200 }], unanswered: [] } }
  }
  setupNetworkMap({ button, dialog, picture, notes, api, onError: (error: unknown) => errors.push(error) })
  button.click()
  t.equal(dialog.open, true)
  t.equal(picture.textContent, 'Asking every router for its neighbours…')
  await new Promise((resolve) => setImmediate(resolve))
  t.match(picture.innerHTML, /^<svg .*data-band="good"/)
  t.equal(notes.children.length, 1, 'the legend')
  fail = true
  reload.click()
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(picture.textContent, '')
  t.match(errors, [{ message: 'radio down' }])
  t.same(asked, ['GET /api/v2/radio/map', 'GET /api/v2/radio/map'])
  close.click()
  t.equal(dialog.open, false)
})

t.test('an end device no router lists is still placed', async (t) => {
  const svg: string = networkMapSvg({ nodes: [coordinator, tracker], links: [], unanswered: [] })
  t.equal(svg.match(/<g class="node"/g)?.length, 2)
})

t.test('each end device is drawn beside the router that lists it', async (t) => {
  const routers = [0, 1, 2].map((i) => ({ address: `00:12:4b:00:11:22:33:0${i}`, type: 'Router', role: 'repeater', model: 'R' }))
  const ends = [0, 1, 2, 3, 4, 5].map((i) => ({ address: `00:12:4b:00:aa:bb:cc:0${i}`, type: 'EndDevice', role: 'tracker', model: 'T' }))
  const links = ends.map((end, i) => ({ from: routers[i % 3].address, to: end.address, linkQuality: 200 }))
  const svg: string = networkMapSvg({ nodes: [coordinator, ...routers, ...ends], links, unanswered: [] })
  const at = (address: string) => {
    const match = new RegExp(`data-address="${address}"><title>[^<]*</title><circle cx="([\\d.]+)" cy="([\\d.]+)"`).exec(svg)!
    return { x: Number(match[1]), y: Number(match[2]) }
  }
  const distance = (a: { x: number; y: number }, b: { x: number; y: number }) => Math.hypot(a.x - b.x, a.y - b.y)
  ends.forEach((end, i) => {
    const own = distance(at(end.address), at(routers[i % 3].address))
    const others = routers.filter((_, r) => r !== i % 3).map((router) => distance(at(end.address), at(router.address)))
    t.ok(
      others.every((d) => own < d),
      `${end.address} nearest its own router`,
    )
  })
})
